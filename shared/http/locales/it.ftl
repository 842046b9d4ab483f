# Le pagine di accesso di scanid in italiano. Gli stessi messaggi e segnaposto di en.ftl.

## Ogni pagina

brand = scanid
language-label = Lingua
language-change = Cambia

## La pagina di accesso (il codice QR)

qr-title = Accedi
qr-heading = Accedi a { $client }
qr-device-client = { $client } (codice { $code })
qr-scan = Scansiona questo codice con l’app scanid per accedere.
qr-alt = Codice QR. Contiene questo link: { $link }
self-registered = { $client } si è registrato da solo presso questo servizio: nessuno ha verificato quel nome.
qr-on-phone = Sei sul telefono?
qr-open-app = Apri l’app scanid
qr-waiting = In attesa dell’app…
qr-passkey = Accedi con una passkey
qr-no-app = Non hai ancora l’app? Scansiona il codice con la fotocamera del telefono: si apre la web app di scanid, dove ti registri.
qr-web-app = Apri la web app di scanid
qr-get-app = Oppure scarica l’app:
qr-pick = Scegli { $number } nell’app scanid
qr-scanned-pick = Scansionato. Sul telefono, scegli il numero mostrato qui.
qr-scanned = Scansionato. Conferma sul telefono…
qr-gone = Questa richiesta di accesso non è più valida.
qr-expired = Questo codice QR è scaduto.
qr-restart = Ricomincia
qr-wrong-number = Il numero scelto sul telefono non corrisponde a quello mostrato qui. Questo accesso è annullato.
qr-second-device = Un secondo telefono ha scansionato questo codice. Questo accesso è annullato: se non sei stato tu, qualcuno potrebbe aver inoltrato il tuo codice di accesso.
qr-denied = Rifiutato. Si prosegue…
qr-approved = Approvato. Si prosegue…
passkey-waiting = In attesa della tua passkey…
passkey-signed-in = Accesso eseguito. Si prosegue…
passkey-failed = Accesso con passkey non riuscito: { $reason }. Riprova o scansiona il codice QR.
passkey-cancelled = annullato

## La pagina del consenso

consent-title = Consenti l’accesso
consent-heading = { $client } vuole accedere al tuo account scanid
consent-logged-in-as = Accesso eseguito come { $name } (@{ $user })
consent-will-receive = { $client } riceverà:
consent-resources = e l’accesso, a tuo nome, a:
consent-deny = Rifiuta
consent-allow = Consenti
consent-sent-back = Tornerai a { $host }.
consent-agent = { $client } è un agente: se lo consenti, potrà anche agire per te senza superare questo accesso, e ogni token che usa indica che agisce per te. Puoi revocarlo in qualsiasi momento nell’app scanid.
scope-openid = I tuoi identificativi scanid (soggetto e ID di servizio)
scope-profile = Il tuo nome utente, il nome visualizzato, la foto del profilo, quando il profilo è cambiato l’ultima volta e i gruppi a cui appartieni
scope-groups = I gruppi a cui appartieni
scope-address = Il tuo paese
scope-offline_access = Accesso mentre non usi l’app (accesso offline)
scope-other = Altri dati
claim-name = Il tuo nome visualizzato
claim-preferred_username = Il tuo nome utente
claim-picture = La tua foto del profilo
claim-updated_at = Quando il tuo profilo è cambiato l’ultima volta

## La pagina del codice del dispositivo (RFC 8628)

device-title = Collega un dispositivo
device-enter = Inserisci il codice mostrato dal tuo dispositivo.
device-code = Codice
device-continue = Continua
device-on-phone = Sei sul telefono con il tuo scanid?
device-approve-in-app = Approva nell’app scanid
device-then = Poi accedi con l’app scanid. Inserisci solo un codice che viene da un dispositivo che stai configurando tu.
device-not-from-page = Questo codice non è stato inviato da questa pagina (l’ha inviato un altro sito, o la pagina era troppo vecchia). Scrivi qui il codice mostrato dal tuo dispositivo.
device-unknown-code = Questo codice non è valido, è scaduto o è già stato usato. Controlla il codice sul dispositivo o ricomincia da lì.
device-connected = Dispositivo collegato
device-connected-text = { $client } ora è collegato al tuo account scanid. Puoi chiudere questa finestra e tornare al dispositivo.
device-refused = Dispositivo non collegato
device-refused-text = Hai rifiutato { $client }: il dispositivo non è stato collegato. Puoi chiudere questa finestra.

## Accesso (form_post) e uscita

signing-in-title = Accesso in corso
signing-in = Accesso in corso…
continue = Continua
logout-title = Esci
logout-heading = Uscire da scanid?
logout-button = Esci
logged-out-title = Uscita eseguita
logged-out-heading = Sei uscito
logged-out-text = Puoi chiudere questa finestra.

## Pagine di errore

error-details = Dettagli:
error-request-invalid = Questa richiesta di accesso non è valida
error-request-invalid-text = L’applicazione ha inviato una richiesta di accesso che scanid non può accettare. Torna all’applicazione e riprova; se succede ancora, avvisa chi la sviluppa.
error-login-not-found = Richiesta di accesso non trovata
error-login-not-found-text = Questa richiesta di accesso non esiste o è scaduta. Ricomincia dall’applicazione.
error-wrong-browser = Browser sbagliato
error-wrong-browser-text = Questo accesso si può completare solo nel browser in cui è iniziato.
error-expired = Richiesta di accesso scaduta
error-expired-text = Questa richiesta di accesso è scaduta. Ricomincia dall’applicazione.
error-completed = Già completata
error-completed-text = Questa richiesta di accesso è già stata completata. Ricomincia dall’applicazione.
error-not-approved = Non ancora approvata
error-not-approved-text = Prima scansiona il codice QR con l’app scanid e approva l’accesso.
error-unknown-app = Applicazione sconosciuta
error-unknown-app-text = L’applicazione che ha iniziato questo accesso non esiste più.
error-refused = Richiesta rifiutata
error-forged-text = Questo modulo non è stato inviato dalla pagina del consenso.
error-no-choice = Scegli consenti o rifiuta
error-no-choice-text = Il modulo del consenso era incompleto.
error-logout-invalid = Richiesta di uscita non valida
error-logout-repeated-text = Un parametro è ripetuto.
error-logout-invalid-text = scanid non può dare seguito a questa richiesta di uscita.
error-logout-refused-text = Questa uscita non è stata confermata sulla pagina di uscita di scanid.
error-failed = Qualcosa è andato storto
error-failed-text = Riprova.
error-unavailable = Temporaneamente non disponibile
error-unavailable-text = scanid non può completare questo passaggio adesso. Riprova tra un momento.
error-rate-limited = Troppi tentativi di accesso
error-rate-limited-text = Attendi un minuto e riprova.
