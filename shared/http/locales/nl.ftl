# De inlogpagina's van scanid in het Nederlands. Dezelfde berichten en plaatshouders als en.ftl.

## Elke pagina

brand = scanid
language-label = Taal
language-change = Wijzigen

## De inlogpagina (de QR-code)

qr-title = Inloggen
qr-heading = Inloggen bij { $client }
qr-device-client = { $client } (code { $code })
qr-scan = Scan deze code met de scanid-app om in te loggen.
qr-alt = QR-code. Hij bevat deze link: { $link }
self-registered = { $client } heeft zichzelf bij deze dienst geregistreerd: niemand heeft die naam gecontroleerd.
qr-on-phone = Op je telefoon?
qr-open-app = Open de scanid-app
qr-waiting = Wachten op de app…
qr-passkey = Inloggen met een passkey
qr-no-app = Nog geen app? Scan de code met de camera van je telefoon: die opent de scanid-webapp, waar je je aanmeldt.
qr-web-app = Open de scanid-webapp
qr-get-app = Of download de app:
qr-pick = Kies { $number } in de scanid-app
qr-scanned-pick = Gescand. Kies op je telefoon het getal dat hier staat.
qr-scanned = Gescand. Bevestig op je telefoon…
qr-gone = Dit inlogverzoek is niet meer geldig.
qr-expired = Deze QR-code is verlopen.
qr-restart = Opnieuw beginnen
qr-wrong-number = Het getal dat op de telefoon is gekozen, klopte niet met het getal hier. Deze inlog is geannuleerd.
qr-second-device = Een tweede telefoon heeft deze code gescand. Deze inlog is geannuleerd: als jij dat niet was, heeft iemand misschien je inlogcode doorgestuurd.
qr-denied = Geweigerd. Verder…
qr-approved = Goedgekeurd. Verder…
passkey-waiting = Wachten op je passkey…
passkey-signed-in = Ingelogd. Verder…
passkey-failed = Inloggen met passkey is mislukt: { $reason }. Probeer het opnieuw of scan de QR-code.
passkey-cancelled = geannuleerd

## De toestemmingspagina

consent-title = Toegang toestaan
consent-heading = { $client } wil toegang tot je scanid-account
consent-logged-in-as = Ingelogd als { $name } (@{ $user })
consent-will-receive = { $client } krijgt:
consent-resources = en toegang, als jou, tot:
consent-deny = Weigeren
consent-allow = Toestaan
consent-sent-back = Je gaat terug naar { $host }.
consent-agent = { $client } is een agent: als je het toestaat, mag het ook namens jou handelen met hoogstens deze toegang, en elk token dat het gebruikt vermeldt dat het namens jou handelt. Je kunt dit altijd intrekken in de scanid-app.
scope-openid = Je scanid-kenmerken (subject en dienst-ID)
scope-profile = Je gebruikersnaam, weergavenaam, profielfoto, wanneer je profiel voor het laatst is gewijzigd en de groepen waar je bij hoort
scope-groups = De groepen waar je bij hoort
scope-address = Je land
scope-offline_access = Toegang terwijl je de app niet gebruikt (offline toegang)
scope-other = Overige gegevens
claim-name = Je weergavenaam
claim-preferred_username = Je gebruikersnaam
claim-picture = Je profielfoto
claim-updated_at = Wanneer je profiel voor het laatst is gewijzigd

## De apparaatcodepagina (RFC 8628)

device-title = Een apparaat koppelen
device-enter = Voer de code in die je apparaat toont.
device-code = Code
device-continue = Doorgaan
device-on-phone = Op de telefoon met je scanid?
device-approve-in-app = Goedkeuren in de scanid-app
device-then = Log daarna in met de scanid-app. Voer alleen een code in van een apparaat dat je zelf aan het instellen bent.
device-not-from-page = Deze code is niet vanaf deze pagina verstuurd (een andere site stuurde hem, of de pagina was te oud). Typ hier de code die je apparaat toont.
device-unknown-code = Deze code is ongeldig, verlopen of al gebruikt. Controleer de code op je apparaat, of begin daar opnieuw.
device-connected = Apparaat gekoppeld
device-connected-text = { $client } is nu gekoppeld aan je scanid-account. Je kunt dit venster sluiten en teruggaan naar het apparaat.
device-refused = Apparaat niet gekoppeld
device-refused-text = Je hebt { $client } geweigerd: het apparaat is niet gekoppeld. Je kunt dit venster sluiten.

## Inloggen (form_post) en uitloggen

signing-in-title = Inloggen
signing-in = Je wordt ingelogd…
continue = Doorgaan
logout-title = Uitloggen
logout-heading = Uitloggen bij scanid?
logout-button = Uitloggen
logged-out-title = Uitgelogd
logged-out-heading = Je bent uitgelogd
logged-out-text = Je kunt dit venster sluiten.

## Foutpagina's

error-details = Details:
error-request-invalid = Dit inlogverzoek is niet geldig
error-request-invalid-text = De toepassing stuurde een inlogverzoek dat scanid niet kan aannemen. Ga terug naar de toepassing en probeer het opnieuw; blijft het gebeuren, laat het de makers weten.
error-login-not-found = Inlogverzoek niet gevonden
error-login-not-found-text = Dit inlogverzoek bestaat niet of is verlopen. Begin opnieuw vanuit de toepassing.
error-wrong-browser = Verkeerde browser
error-wrong-browser-text = Deze inlog kan alleen worden afgerond in de browser waarin hij begon.
error-expired = Inlogverzoek verlopen
error-expired-text = Dit inlogverzoek is verlopen. Begin opnieuw vanuit de toepassing.
error-completed = Al afgerond
error-completed-text = Dit inlogverzoek is al afgerond. Begin opnieuw vanuit de toepassing.
error-not-approved = Nog niet goedgekeurd
error-not-approved-text = Scan eerst de QR-code met de scanid-app en keur de inlog goed.
error-unknown-app = Onbekende toepassing
error-unknown-app-text = De toepassing die deze inlog begon, bestaat niet meer.
error-refused = Verzoek geweigerd
error-forged-text = Dit formulier is niet vanaf de toestemmingspagina verstuurd.
error-no-choice = Kies toestaan of weigeren
error-no-choice-text = Het toestemmingsformulier was onvolledig.
error-logout-invalid = Ongeldig uitlogverzoek
error-logout-repeated-text = Een parameter komt meer dan eens voor.
error-logout-invalid-text = scanid kan dit uitlogverzoek niet uitvoeren.
error-logout-refused-text = Deze uitlog is niet bevestigd op de uitlogpagina van scanid.
error-failed = Er ging iets mis
error-failed-text = Probeer het opnieuw.
error-unavailable = Tijdelijk niet beschikbaar
error-unavailable-text = scanid kan deze stap nu niet afronden. Probeer het zo opnieuw.
error-rate-limited = Te veel inlogpogingen
error-rate-limited-text = Wacht een minuut en probeer het opnieuw.
