(function(){
var link=document.getElementById('app-link'),qr=document.getElementById('qr'),state=document.getElementById('state');
var statusUrl=state.getAttribute('data-status-url');
function poll(){fetch(statusUrl,{credentials:'same-origin',headers:{'Accept':'application/json'},cache:'no-store'})
.then(function(r){return r.ok?r.json():null}).then(function(s){
if(!s){state.textContent='This login request is no longer valid.';return;}
if(s.status==='pending'){if(s.app_link&&s.app_link!==link.getAttribute('data-qr-payload')){
link.setAttribute('href',s.app_link);link.setAttribute('data-qr-payload',s.app_link);qr.innerHTML=s.qr_svg;}
setTimeout(poll,1000);return;}
if(s.status==='expired'){qr.innerHTML='';state.textContent='This QR code has expired. ';
var a=document.createElement('a');a.href=s.restart;a.id='restart';a.textContent='Start again';state.appendChild(a);return;}
if(s.next){state.textContent='Approved. Continuing…';window.location.assign(s.next);}
}).catch(function(){setTimeout(poll,2000);});}
setTimeout(poll,1000);})();
