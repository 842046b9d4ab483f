(function(){
// The login page's poll: asks for the status as often as the last answer says (poll_ms: every
// 2 s until the app scans, then every second), never while the page is hidden (no one can scan
// a hidden code), and once at once when it shows again.
var link=document.getElementById('app-link'),qr=document.getElementById('qr'),state=document.getElementById('state');
var statusUrl=state.getAttribute('data-status-url');
var next=parseInt(state.getAttribute('data-poll-ms'),10)||2000,timer=null,done=false;
function later(ms){clearTimeout(timer);timer=null;if(!done&&!document.hidden){timer=setTimeout(poll,ms);}}
function poll(){timer=null;fetch(statusUrl,{credentials:'same-origin',headers:{'Accept':'application/json'},cache:'no-store'})
.then(function(r){return r.ok?r.json():null}).then(function(s){
if(!s){done=true;state.textContent='This login request is no longer valid.';return;}
if(s.status==='pending'){if(s.app_link&&s.app_link!==link.getAttribute('data-qr-payload')){
link.setAttribute('href',s.app_link);link.setAttribute('data-qr-payload',s.app_link);qr.innerHTML=s.qr_svg;}
if(s.scanned){state.textContent='Scanned. Confirm on your phone…';}
next=s.poll_ms||next;later(next);return;}
done=true;
if(s.status==='expired'){qr.innerHTML='';state.textContent='This QR code has expired. ';
var a=document.createElement('a');a.href=s.restart;a.id='restart';a.textContent='Start again';state.appendChild(a);return;}
if(s.next){state.textContent='Approved. Continuing…';window.location.assign(s.next);}
}).catch(function(){later(2000);});}
document.addEventListener('visibilitychange',function(){if(document.hidden){clearTimeout(timer);timer=null;}else if(!timer&&!done){poll();}});
later(next);})();
