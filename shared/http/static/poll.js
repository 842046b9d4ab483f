(function(){
// The login page's poll: asks for the status as often as the last answer says (poll_ms: every
// 2 s until the app scans, then every second), one request at a time, never while the page is
// hidden (no one can scan a hidden code), and at once when it shows again. Only a 404 (the
// login is gone or not this browser's) ends it; a 429 or 5xx (throttling, an outage) is
// retried after its Retry-After, or with a growing delay.
var link=document.getElementById('app-link'),qr=document.getElementById('qr'),state=document.getElementById('state');
var statusUrl=state.getAttribute('data-status-url');
var next=parseInt(state.getAttribute('data-poll-ms'),10)||2000,timer=null,busy=false,done=false,backoff=2000;
function later(ms){clearTimeout(timer);timer=null;if(!done&&!document.hidden){timer=setTimeout(poll,ms);}}
function retry(r){var s=r&&parseInt(r.headers.get('Retry-After'),10);
var ms=s>0?s*1000:backoff;backoff=Math.min(backoff*2,30000);later(ms);}
function poll(){timer=null;if(busy||done){return;}busy=true;
fetch(statusUrl,{credentials:'same-origin',headers:{'Accept':'application/json'},cache:'no-store'})
.then(function(r){
if(r.status===404||r.status===410){return {gone:true};}
if(!r.ok){return {retry:r};}
return r.json();})
.then(function(s){busy=false;if(done){return;}
if(s.retry){retry(s.retry);return;}
backoff=2000;
if(s.gone){done=true;state.textContent='This login request is no longer valid.';return;}
if(s.status==='pending'){if(s.app_link&&s.app_link!==link.getAttribute('data-qr-payload')){
link.setAttribute('href',s.app_link);link.setAttribute('data-qr-payload',s.app_link);qr.innerHTML=s.qr_svg;}
if(s.scanned){state.textContent='Scanned. Confirm on your phone…';}
next=s.poll_ms||next;later(next);return;}
done=true;clearTimeout(timer);
if(s.status==='expired'){qr.innerHTML='';state.textContent='This QR code has expired. ';
var a=document.createElement('a');a.href=s.restart;a.id='restart';a.textContent='Start again';state.appendChild(a);return;}
if(s.next){state.textContent='Approved. Continuing…';window.location.assign(s.next);}
}).catch(function(){busy=false;retry(null);});}
document.addEventListener('visibilitychange',function(){if(document.hidden){clearTimeout(timer);timer=null;}else if(!timer&&!busy&&!done){poll();}});
later(next);})();
