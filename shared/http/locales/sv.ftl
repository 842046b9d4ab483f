# scanids inloggningssidor på svenska. Samma meddelanden och platshållare som en.ftl.

## Varje sida

brand = scanid
language-label = Språk
language-change = Byt

## Inloggningssidan (QR-koden)

qr-title = Logga in
qr-heading = Logga in på { $client }
qr-device-client = { $client } (kod { $code })
qr-scan = Skanna koden med scanid-appen för att logga in.
qr-alt = QR-kod. Den innehåller länken: { $link }
self-registered = { $client } har registrerat sig själv hos tjänsten: ingen har kontrollerat namnet.
qr-on-phone = På mobilen?
qr-open-app = Öppna scanid-appen
qr-waiting = Väntar på appen…
qr-passkey = Logga in med nyckel (passkey)
qr-no-app = Ingen app ännu? Skanna koden med mobilens kamera: då öppnas scanids webbapp, där du registrerar dig.
qr-web-app = Öppna scanids webbapp
qr-get-app = Eller hämta appen:
qr-pick = Välj { $number } i scanid-appen
qr-scanned-pick = Skannad. Välj numret som visas här i mobilen.
qr-scanned = Skannad. Bekräfta i mobilen…
qr-gone = Den här inloggningsbegäran gäller inte längre.
qr-expired = QR-koden har gått ut.
qr-restart = Börja om
qr-wrong-number = Numret som valdes i mobilen stämde inte med det som visas här. Inloggningen har avbrutits.
qr-second-device = En andra mobil skannade koden. Inloggningen har avbrutits: om det inte var du kan någon ha vidarebefordrat din inloggningskod.
qr-denied = Nekad. Fortsätter…
qr-approved = Godkänd. Fortsätter…
passkey-waiting = Väntar på din nyckel…
passkey-signed-in = Inloggad. Fortsätter…
passkey-failed = Inloggningen med nyckel misslyckades: { $reason }. Försök igen eller skanna QR-koden.
passkey-cancelled = avbruten

## Samtyckessidan

consent-title = Ge åtkomst
consent-heading = { $client } vill komma åt ditt scanid-konto
consent-logged-in-as = Inloggad som { $name } (@{ $user })
consent-will-receive = { $client } får:
consent-resources = och åtkomst, som du, till:
consent-deny = Neka
consent-allow = Tillåt
consent-sent-back = Du skickas tillbaka till { $host }.
consent-agent = { $client } är en agent: om du tillåter kan den också agera för dig med högst den här åtkomsten, och varje token den använder anger att den agerar för dig. Du kan när som helst dra tillbaka detta i scanid-appen.
scope-openid = Dina scanid-identifierare (subjekt och tjänste-ID)
scope-profile = Ditt användarnamn, visningsnamn, din profilbild, när profilen senast ändrades och grupperna du tillhör
scope-groups = Grupperna du tillhör
scope-address = Ditt land
scope-offline_access = Åtkomst när du inte använder appen (offlineåtkomst)
scope-other = Övriga uppgifter
claim-name = Ditt visningsnamn
claim-preferred_username = Ditt användarnamn
claim-picture = Din profilbild
claim-updated_at = När din profil senast ändrades

## Enhetskodsidan (RFC 8628)

device-title = Anslut en enhet
device-enter = Ange koden som enheten visar.
device-code = Kod
device-continue = Fortsätt
device-on-phone = På mobilen med ditt scanid?
device-approve-in-app = Godkänn i scanid-appen
device-then = Logga sedan in med scanid-appen. Ange bara en kod från en enhet som du själv håller på att ansluta.
device-not-from-page = Koden skickades inte från den här sidan (en annan webbplats skickade den, eller sidan var för gammal). Skriv in koden som enheten visar, här.
device-unknown-code = Koden är ogiltig, har gått ut eller har redan använts. Kontrollera koden på enheten eller börja om där.
device-connected = Enheten är ansluten
device-connected-text = { $client } är nu ansluten till ditt scanid-konto. Du kan stänga fönstret och gå tillbaka till enheten.
device-refused = Enheten anslöts inte
device-refused-text = Du nekade { $client }: enheten anslöts inte. Du kan stänga fönstret.

## Inloggning (form_post) och utloggning

signing-in-title = Loggar in
signing-in = Loggar in dig…
continue = Fortsätt
logout-title = Logga ut
logout-heading = Logga ut från scanid?
logout-button = Logga ut
logged-out-title = Utloggad
logged-out-heading = Du är utloggad
logged-out-text = Du kan stänga fönstret.

## Felsidor

error-details = Detaljer:
error-request-invalid = Inloggningsbegäran är ogiltig
error-request-invalid-text = Tjänsten skickade en inloggningsbegäran som scanid inte kan ta emot. Gå tillbaka till tjänsten och försök igen; händer det igen, berätta för dem som gör den.
error-login-not-found = Inloggningsbegäran hittades inte
error-login-not-found-text = Inloggningsbegäran finns inte eller har gått ut. Börja om från tjänsten.
error-wrong-browser = Fel webbläsare
error-wrong-browser-text = Inloggningen kan bara slutföras i webbläsaren där den startade.
error-expired = Inloggningsbegäran har gått ut
error-expired-text = Inloggningsbegäran har gått ut. Börja om från tjänsten.
error-completed = Redan slutförd
error-completed-text = Inloggningsbegäran är redan slutförd. Börja om från tjänsten.
error-not-approved = Inte godkänd än
error-not-approved-text = Skanna QR-koden med scanid-appen och godkänn inloggningen först.
error-unknown-app = Okänd tjänst
error-unknown-app-text = Tjänsten som startade inloggningen finns inte längre.
error-refused = Begäran nekad
error-forged-text = Formuläret skickades inte från samtyckessidan.
error-no-choice = Välj tillåt eller neka
error-no-choice-text = Samtyckesformuläret var ofullständigt.
error-logout-invalid = Ogiltig utloggningsbegäran
error-logout-repeated-text = En parameter förekommer flera gånger.
error-logout-invalid-text = scanid kan inte utföra den här utloggningsbegäran.
error-logout-refused-text = Utloggningen bekräftades inte på scanids utloggningssida.
error-failed = Något gick fel
error-failed-text = Försök igen.
error-unavailable = Tillfälligt otillgänglig
error-unavailable-text = scanid kan inte slutföra steget just nu. Försök igen om en stund.
error-rate-limited = För många inloggningsförsök
error-rate-limited-text = Vänta en minut och försök igen.
