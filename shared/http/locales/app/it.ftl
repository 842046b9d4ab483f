# L’app web di scanid, italiano (allineato a en.ftl).

shell-loading = Caricamento…
shell-noscript = L’app web di scanid ha bisogno di JavaScript. Puoi anche scaricare l’app:
shell-description = La tua identità scanid: registrati e approva gli accessi scansionando il loro codice QR.

language = Lingua
back = Indietro
cancel = Annulla
done = Fine
go-home = Vai al mio scanid
unknown = sconosciuto
details = Dettagli
offline = Il servizio non è raggiungibile. Sei connesso a Internet?
failed = Qualcosa è andato storto
insecure-title = scanid ha bisogno di una connessione sicura
insecure-text = Apri questa pagina in https. L’app scanid custodisce la sua chiave con la crittografia del browser, che funziona solo sulle pagine sicure.

welcome = Benvenuto! Il tuo scanid è pronto.
signup-title = Crea il tuo scanid
signup-intro = La tua identità vive su questo telefono: qui viene creata una chiave che non lo lascia mai.
signup-name = Nome (il tuo identificativo univoco)
signup-name-hint = Da 3 a 32 caratteri tra a–z, 0–9, punto, trattino basso, trattino.
display-name = Nome visualizzato
signup-country = Paese (due lettere, ad es. IT)
signup-country-hint = Codice ISO 3166-1, in maiuscolo.
signup-submit = Crea il mio scanid
signup-available = «{ $name }» è disponibile.
signup-taken = «{ $name }» è già in uso. Scegli un altro nome.
signup-check = Controlla i campi evidenziati.
signup-photo-failed = La tua identità è stata creata, ma la foto non è stata salvata: { $reason }
photo = Foto (fotocamera o file)
photo-hint = JPEG, PNG o WebP, massimo 1 MB. Facoltativa.
photo-too-large = Questa foto supera 1 MB; scegline una più piccola.
edit-title = Modifica profilo
edit-save = Salva
edit-saved = Profilo salvato.

home-title = Il tuo scanid
home-identity = La tua identità
home-service-id = ID di servizio
home-how = Per accedere da qualche parte, scansiona il codice QR della sua pagina di accesso con la fotocamera del telefono. Il link si apre qui.
home-manage = Gestisci
home-activity = Accessi recenti
home-keys = Chiavi e passkey
home-agents = Agenti che agiscono per te
home-rotate = Sostituisci la chiave del dispositivo
home-sign-out = Esci ovunque
home-delete = Elimina identità

keys-upgrade = Usa una passkey su questo telefono
keys-add = Aggiungi una passkey
keys-upgrade-why = Con una passkey, ogni approvazione chiede la tua impronta, il tuo volto o il PIN: chi tiene in mano il tuo telefono sbloccato non può approvare al posto tuo. La chiave attuale passa tutto alla passkey, poi viene ritirata.
keys-last-used = Ultimo uso { $when }
keys-last-used-from = Ultimo uso { $when } da { $place }
keys-not-used = Non ancora usata
keys-removed = La chiave è stata rimossa.
keys-remove = Rimuovi
keys-remove-confirm = Sì, rimuovila
keys-remove-sign-out = È stata persa o potrebbe essere stata copiata: esci anche ovunque
keys-last-key = È la tua ultima chiave: aggiungine un’altra prima di rimuoverla.
keys-this-phone = (questo telefono)
keys-passkey = Passkey
passkey-name = Questo telefono
keys-passkey-level = Aggiunta con la chiave del dispositivo: i suoi accessi valgono come quelli della chiave del dispositivo (senza livello impronta, volto o PIN).
keys-device-key = Chiave del dispositivo
keys-device-key-note = Firma senza chiederti di sbloccare

rotate-text = Su questo telefono viene creata una nuova chiave. La vecchia chiave le passa tutto e smette subito di funzionare.
rotate-also = Esci anche ovunque
rotate-also-hint = Chiude ogni accesso fatto con scanid: ogni app e sito ti chiederà di accedere di nuovo. Sceglilo se qualcun altro potrebbe aver avuto il tuo telefono.
rotate-confirm = Sostituisci la chiave
rotate-done = Una nuova chiave del dispositivo è attiva; la vecchia non funziona più.
rotate-done-everywhere = Una nuova chiave del dispositivo è attiva; la vecchia non funziona più e sei uscito ovunque.
sign-out-text = Chiude ogni accesso fatto con scanid, su ogni dispositivo: ogni app e sito viene avvisato e ti chiede di accedere di nuovo. Le tue chiavi restano come sono.
sign-out-lost = Hai perso un telefono o una passkey, o potrebbe essere stato copiato? Rimuovilo in «Chiavi e passkey» (che offre anche questo), poi esci ovunque.
signed-out = { $count ->
    [one] Sei uscito ovunque: { $count } sessione chiusa, e ogni app e sito ti chiederà di accedere di nuovo.
   *[other] Sei uscito ovunque: { $count } sessioni chiuse, e ogni app e sito ti chiederà di accedere di nuovo.
}
delete-text = Questo elimina la tua identità scanid presso il servizio: il tuo profilo e la tua foto, i tuoi accessi ovunque e la chiave su questo telefono. Il tuo nome diventa libero per altri. Non si può annullare.
delete-label = Scrivi il tuo nome ({ $name }) per confermare
delete-mismatch = Scrivi il tuo nome, { $name }, per confermare.
delete-confirm = Elimina la mia identità
delete-done = La tua identità è stata eliminata. Puoi crearne una nuova.

activity-none = Nessun accesso per ora.
activity-approved = approvato
activity-denied = rifiutato
activity-refused = bloccato (l’applicazione non lo consente)
activity-wrong-number = annullato (è stato scelto un numero sbagliato)
activity-second-device = annullato (l’ha scansionato un secondo telefono)
activity-sso = accesso già fatto: senza scansione
activity-from = da { $place } · { $browser }
activity-unknown-browser = browser sconosciuto
activity-reported = Segnalato come «non ero io».
activity-not-me = Non ero io
activity-ask = Chiudere questo accesso a { $client }? Il suo accesso viene revocato subito e { $client } viene avvisato.
activity-yes = Sì, chiudilo
activity-done-session = Fatto: { $client } è stato disconnesso da quell’accesso e il suo accesso è stato revocato.
activity-done-tokens = Fatto: l’accesso di quel login a { $client } è stato revocato (la sua sessione era già terminata).
activity-done-nothing = Segnalato. Non restava nessuna sessione né accesso di quel login da chiudere.

place-unknown = indirizzo sconosciuto
place-network = rete { $network }
where-started-from = Avviato da
where-this-phone = Questo telefono
where-asked-at = Richiesto il
where-warning = Attenzione:
flag-location-mismatch = È stato avviato in un Paese diverso da quello in cui si trova questo telefono.
flag-first-from-here = Non hai mai approvato un accesso da quel luogo.
flag-high-usage = Nell’ultima ora sono stati richiesti molti accessi per la tua identità.
where-refused = { $client } non consente un accesso con questi avvisi: non può essere approvato.
where-deny-it = Rifiutalo.

scan-reading = Lettura del codice…
scan-expired = Questo codice è scaduto
scan-gone = L’accesso non è più in attesa, oppure il codice era vecchio. Scansiona di nuovo il codice sulla pagina di accesso.
scan-new = { $client } ti chiede di accedere con scanid. Su questo telefono non c’è ancora uno scanid: creane uno, poi approva.
code-not-waiting = Questo codice non è in attesa
code-invalid = Il codice non è valido, è scaduto o è già stato usato. Ricomincia sul dispositivo.

scope-openid = I tuoi identificativi scanid (soggetto e ID di servizio)
scope-profile = Il tuo nome utente, il nome visualizzato, la foto del profilo, quando il profilo è cambiato l’ultima volta e i gruppi a cui appartieni
scope-groups = I gruppi a cui appartieni
scope-address = Il tuo Paese
scope-offline-access = Accesso mentre non usi l’app (accesso offline)
login-title = Accedere a { $client }?
connect-title = Collegare { $client }?
asks-for = { $client } chiede:
asks-for-at = { $client } su { $host } chiede:
an-app = un’app
resources = e l’accesso, a tuo nome, a:
self-registered = { $client } si è registrato da solo presso questo servizio: nessuno ha verificato quel nome.
approve-as = Come { $user } · fino alle { $time }
agent = { $browser } su { $os }
started-here = Avviato su questo telefono.
started-elsewhere = Questo accesso è stato avviato su un altro dispositivo.
address = Indirizzo
browser = Browser
approve-only-if = Approva solo se hai avviato tu questo accesso, proprio adesso, su uno schermo davanti a te. Se qualcuno ti ha mandato questo codice, rifiuta.
device-check = Controlla che il dispositivo mostri questo codice:
device-address = L’indirizzo del dispositivo
device-calls-itself = Il dispositivo si presenta come (una sua dichiarazione, non verificata)
device-notice = Un codice dispositivo è una richiesta di un dispositivo. Approva solo se hai in mano quel dispositivo (o ce l’hai davanti) e mostra questo codice. Nessuno ha bisogno che tu approvi un codice che ti ha inviato, letto o chiesto di digitare: se l’hai ricevuto così, rifiuta.
device-differ = Se i codici sono diversi, rifiuta.
pick = Scegli il numero mostrato sulla schermata di accesso:
pick-passkey = Poi il telefono ti chiederà l’impronta, il volto o il blocco schermo per approvare.
number-here = Avviato in questo browser: la sua pagina di accesso mostrava { $number }.
arming = I pulsanti rispondono solo un attimo dopo la comparsa di questa schermata, così un tocco involontario non approva nulla.
approve = Approva
deny = Rifiuta
approved-title = Accesso approvato
denied-title = Accesso rifiutato
cancelled-title = Accesso annullato
approved-text = Stai accedendo a { $client }. Continua sullo schermo da cui hai iniziato.
approved-device = { $client } è collegato. Continua sul dispositivo.
denied-text = { $client } è stato avvisato che hai rifiutato.
refused = { $client } non consente questo accesso: { $reason }. È stato annullato.
not-waiting = Questo accesso non è più in attesa (è scaduto o è già stato deciso). Scansiona di nuovo il codice.

# The agents acting for the person (token exchange)
agents-text = Le applicazioni a cui hai permesso di agire per te altrove, senza superare l’accesso che hai dato loro. Revocane una e smette subito di agire per te.
agents-none = Nessun agente agisce per te.
agents-since = Consentito { $when }
agents-scopes = Può usare: { $scopes }
agents-resources = Presso: { $resources }
agents-withdraw = Revoca
agents-ask = Impedire a { $client } di agire per te? Il suo accesso a tuo nome termina subito e al prossimo accesso ti verrà chiesto di nuovo.
agents-withdrawn = Revocato: { $client } non può più agire per te.

# Requests waiting for the person (OpenID CIBA)
waiting-title = Richieste in attesa
waiting-none = Nessuna richiesta ti sta aspettando.
waiting-open = Apri
waiting-asked = Richiesta alle { $time }
waiting-gone = Questa richiesta non è più in attesa (è scaduta o è già stata decisa).
binding-message = Chi la chiede dovrebbe mostrarti esattamente questo messaggio:
binding-none = Questa richiesta non ha alcun messaggio da confrontare.
binding-check = Approva solo se stai trattando proprio ora con questa applicazione (al telefono, a una cassa, con il tuo agente) e ciò che ti mostra corrisponde. Se non ti aspettavi questa richiesta, rifiuta.
approve-agent = { $client } è un agente: se lo consenti, potrà anche agire per te senza superare questo accesso, e ogni token che usa indica che agisce per te. Puoi revocarlo in qualsiasi momento nell’app scanid.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = Notifiche
push-text = Ricevi una notifica su questo telefono quando qualcuno ti cerca tramite il canale secondario: un call center, una cassa o un agente. Dice solo che una richiesta è in attesa.
push-is-on = Le notifiche sono attive su questo telefono.
push-is-off = Le notifiche sono disattivate: apri l'app per vedere le richieste in attesa.
push-turn-on = Attiva le notifiche
push-turn-off = Disattiva le notifiche
push-now-on = Notifiche attivate.
push-now-off = Notifiche disattivate.
push-blocked = Le notifiche sono bloccate per questa app. Consentile nelle impostazioni del sito del browser, poi riprova.
push-notice-title = Una richiesta ti aspetta
push-notice-body = Apri scanid per vedere chi chiede, poi approva o rifiuta.
