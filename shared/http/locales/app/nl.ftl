# De scanid-webapp, Nederlands (gelijk aan en.ftl).

shell-loading = Laden…
shell-noscript = De scanid-webapp heeft JavaScript nodig. Je kunt ook de app downloaden:
shell-description = Je scanid-identiteit: meld je aan en keur inlogpogingen goed door hun QR-code te scannen.

language = Taal
back = Terug
cancel = Annuleren
done = Klaar
go-home = Naar mijn scanid
unknown = onbekend
details = Details
offline = De dienst is niet bereikbaar. Ben je online?
failed = Er ging iets mis
insecure-title = scanid heeft een beveiligde verbinding nodig
insecure-text = Open deze pagina via https. De scanid-app bewaart zijn sleutel met de cryptografie van je browser, en die werkt alleen op beveiligde pagina’s.

welcome = Welkom! Je scanid is klaar.
signup-title = Maak je scanid
signup-intro = Je identiteit woont op deze telefoon: hier wordt een sleutel gemaakt die de telefoon nooit verlaat.
signup-name = Naam (je unieke gebruikersnaam)
signup-name-hint = 3 tot 32 tekens uit a–z, 0–9, punt, underscore, koppelteken.
display-name = Weergavenaam
signup-country = Land (twee letters, bijv. NL)
signup-country-hint = ISO 3166-1-code, in hoofdletters.
signup-submit = Mijn scanid maken
signup-available = ‘{ $name }’ is beschikbaar.
signup-taken = ‘{ $name }’ is al bezet. Kies een andere naam.
signup-check = Controleer de gemarkeerde velden.
signup-photo-failed = Je identiteit is gemaakt, maar de foto is niet opgeslagen: { $reason }
photo = Foto (camera of bestand)
photo-hint = JPEG, PNG of WebP, hoogstens 1 MB. Optioneel.
photo-too-large = Deze foto is groter dan 1 MB; kies een kleinere.
edit-title = Profiel bewerken
edit-save = Opslaan
edit-saved = Profiel opgeslagen.

home-title = Je scanid
home-identity = Je identiteit
home-service-id = Dienst-ID
home-how = Om ergens in te loggen, scan je de QR-code op de inlogpagina met de camera van je telefoon. De link opent hier.
home-manage = Beheren
home-activity = Recente logins
home-keys = Sleutels en passkeys
home-agents = Agenten die namens jou handelen
home-rotate = Apparaatsleutel vervangen
home-sign-out = Overal uitloggen
home-delete = Identiteit verwijderen

keys-upgrade = Een passkey op deze telefoon gebruiken
keys-add = Een passkey toevoegen
keys-upgrade-why = Met een passkey vraagt elke goedkeuring om je vingerafdruk, gezicht of pincode: wie je ontgrendelde telefoon vasthoudt, kan niet voor jou goedkeuren. Je huidige sleutel draagt alles over aan de passkey en gaat daarna met pensioen.
keys-last-used = Laatst gebruikt { $when }
keys-last-used-from = Laatst gebruikt { $when } vanaf { $place }
keys-not-used = Nog niet gebruikt
keys-removed = De sleutel is verwijderd.
keys-remove = Verwijderen
keys-remove-confirm = Ja, verwijderen
keys-remove-sign-out = Hij is kwijt of is misschien gekopieerd: ook overal uitloggen
keys-last-key = Dit is je laatste sleutel: voeg eerst een andere toe voordat je hem verwijdert.
keys-this-phone = (deze telefoon)
keys-passkey = Passkey
passkey-name = Deze telefoon
keys-passkey-level = Toegevoegd met de apparaatsleutel: de logins ermee tellen als die van de apparaatsleutel (geen niveau van vingerafdruk, gezicht of pincode).
keys-device-key = Apparaatsleutel
keys-device-key-note = Ondertekent zonder om ontgrendeling te vragen

rotate-text = Er wordt een nieuwe sleutel op deze telefoon gemaakt. De oude sleutel draagt alles aan hem over en werkt meteen niet meer.
rotate-also = Ook overal uitloggen
rotate-also-hint = Beëindigt elke login die met scanid is gedaan: elke app en site vraagt je opnieuw in te loggen. Kies dit als iemand anders je telefoon gehad kan hebben.
rotate-confirm = Sleutel vervangen
rotate-done = Er is een nieuwe apparaatsleutel; de oude werkt niet meer.
rotate-done-everywhere = Er is een nieuwe apparaatsleutel; de oude werkt niet meer en je bent overal uitgelogd.
sign-out-text = Beëindigt elke login die met scanid is gedaan, op elk apparaat: elke app en site krijgt bericht en vraagt je opnieuw in te loggen. Je sleutels blijven zoals ze zijn.
sign-out-lost = Is een telefoon of passkey kwijt, of is hij misschien gekopieerd? Verwijder hem onder ‘Sleutels en passkeys’ (waar dit ook kan) en log dan overal uit.
signed-out = { $count ->
    [one] Je bent overal uitgelogd: { $count } sessie beëindigd, en elke app en site vraagt je opnieuw in te loggen.
   *[other] Je bent overal uitgelogd: { $count } sessies beëindigd, en elke app en site vraagt je opnieuw in te loggen.
}
delete-text = Hiermee verwijder je je scanid-identiteit bij de dienst: je profiel en foto, je logins overal en de sleutel op deze telefoon. Je naam komt vrij voor anderen. Dit kan niet ongedaan worden gemaakt.
delete-label = Typ je naam ({ $name }) om te bevestigen
delete-mismatch = Typ je naam, { $name }, om te bevestigen.
delete-confirm = Mijn identiteit verwijderen
delete-done = Je identiteit is verwijderd. Je kunt een nieuwe maken.

activity-none = Nog geen logins.
activity-approved = goedgekeurd
activity-denied = afgewezen
activity-refused = geweigerd (de toepassing staat het niet toe)
activity-wrong-number = geannuleerd (er werd een verkeerd getal gekozen)
activity-second-device = geannuleerd (een tweede telefoon scande hem)
activity-sso = al ingelogd: geen scan
activity-from = vanaf { $place } · { $browser }
activity-unknown-browser = onbekende browser
activity-reported = Gemeld als niet jij.
activity-not-me = Dit was ik niet
activity-ask = Deze login bij { $client } uitloggen? De toegang wordt meteen ingetrokken en { $client } krijgt bericht.
activity-yes = Ja, uitloggen
activity-done-session = Klaar: { $client } is uitgelogd van die login en de toegang is ingetrokken.
activity-done-tokens = Klaar: de toegang van die login tot { $client } is ingetrokken (de sessie was al beëindigd).
activity-done-nothing = Gemeld. Er was geen sessie of toegang van die login meer om te beëindigen.

place-unknown = onbekend adres
place-network = netwerk { $network }
where-started-from = Gestart vanaf
where-this-phone = Deze telefoon
where-asked-at = Gevraagd op
where-warning = Waarschuwing:
flag-location-mismatch = Hij is gestart in een ander land dan waar deze telefoon is.
flag-first-from-here = Je hebt nog nooit een login vanaf die plek goedgekeurd.
flag-high-usage = Het afgelopen uur zijn er veel logins voor je identiteit gevraagd.
where-refused = { $client } staat geen login met deze waarschuwingen toe: hij kan niet worden goedgekeurd.
where-deny-it = Wijs hem af.

scan-reading = Code lezen…
scan-expired = Deze code is verlopen
scan-gone = De login wacht niet meer, of de code was oud. Scan de code op de inlogpagina opnieuw.
scan-new = { $client } vraagt je in te loggen met scanid. Je hebt nog geen scanid op deze telefoon: maak er een en keur daarna goed.
code-not-waiting = Deze code wacht niet
code-invalid = De code is ongeldig, verlopen of al gebruikt. Begin opnieuw op het apparaat.

scope-openid = Je scanid-ID’s (subject en dienst-ID)
scope-profile = Je gebruikersnaam, weergavenaam, profielfoto, wanneer je profiel voor het laatst veranderde en de groepen waartoe je behoort
scope-groups = De groepen waartoe je behoort
scope-address = Je land
scope-offline-access = Toegang terwijl je de app niet gebruikt (offline toegang)
login-title = Inloggen bij { $client }?
connect-title = { $client } koppelen?
asks-for = { $client } vraagt om:
asks-for-at = { $client } op { $host } vraagt om:
an-app = een app
resources = en toegang, als jij, tot:
self-registered = { $client } heeft zichzelf bij deze dienst geregistreerd: niemand heeft die naam gecontroleerd.
approve-as = Als { $user } · tot { $time }
agent = { $browser } op { $os }
started-here = Gestart op deze telefoon.
started-elsewhere = Deze login is op een ander apparaat gestart.
address = Adres
browser = Browser
approve-only-if = Keur alleen goed als je deze login zelf hebt gestart, zojuist, op een scherm voor je. Als iemand je deze code heeft gestuurd, wijs af.
device-check = Controleer of het apparaat deze code toont:
device-address = Het adres van het apparaat
device-calls-itself = Het apparaat noemt zich (zijn eigen bewering, niet gecontroleerd)
device-notice = Een apparaatcode is een verzoek van een apparaat. Keur alleen goed als je dat apparaat vasthoudt (of het voor je staat) en het deze code toont. Niemand heeft jouw goedkeuring nodig voor een code die hij je stuurde, voorlas of liet intypen: als je hem zo kreeg, wijs af.
device-differ = Als de codes verschillen, wijs af.
pick = Kies het getal dat op het inlogscherm staat:
pick-passkey = Je telefoon vraagt daarna om je vingerafdruk, gezicht of schermvergrendeling om goed te keuren.
number-here = Gestart in deze browser: de inlogpagina toonde { $number }.
arming = De knoppen werken pas even nadat dit scherm verschijnt, zodat een onbedoelde tik niets goedkeurt.
approve = Goedkeuren
deny = Afwijzen
approved-title = Login goedgekeurd
denied-title = Login afgewezen
cancelled-title = Login geannuleerd
approved-text = Je logt in bij { $client }. Ga verder op het scherm waar je begon.
approved-device = { $client } is gekoppeld. Ga verder op het apparaat.
denied-text = { $client } heeft gehoord dat je nee zei.
refused = { $client } staat deze login niet toe: { $reason }. Hij is geannuleerd.
not-waiting = Deze login wacht niet meer (hij is verlopen of er is al over beslist). Scan de code opnieuw.

# The agents acting for the person (token exchange)
agents-text = Apps die je hebt toegestaan elders namens jou te handelen, met hoogstens de toegang die je ze gaf. Trek er een in en die handelt meteen niet meer namens jou.
agents-none = Er handelt geen agent namens jou.
agents-since = Toegestaan { $when }
agents-scopes = Mag gebruiken: { $scopes }
agents-resources = Bij: { $resources }
agents-withdraw = Intrekken
agents-ask = Mag { $client } niet meer namens jou handelen? De toegang namens jou stopt meteen en bij de volgende login wordt het je opnieuw gevraagd.
agents-withdrawn = Ingetrokken: { $client } kan niet meer namens jou handelen.

# Requests waiting for the person (OpenID CIBA)
waiting-title = Verzoeken die op je wachten
waiting-none = Er wacht geen verzoek op je.
waiting-open = Openen
waiting-asked = Gevraagd om { $time }
waiting-gone = Dit verzoek wacht niet meer (het is verlopen of er is al over beslist).
binding-message = Wie het vraagt, hoort je precies dit bericht te laten zien:
binding-none = Dit verzoek heeft geen bericht om te vergelijken.
binding-check = Keur alleen goed als je nu met deze toepassing te maken hebt (aan de telefoon, bij een kassa, met je agent) en wat die je laat zien overeenkomt. Verwachtte je dit verzoek niet, weiger dan.
approve-agent = { $client } is een agent: als je het toestaat, mag het ook namens jou handelen met hoogstens deze toegang, en elk token dat het gebruikt vermeldt dat het namens jou handelt. Je kunt dit altijd intrekken in de scanid-app.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = Meldingen
push-text = Krijg een melding op deze telefoon als iemand je via het backchannel vraagt: een callcenter, een kassa of een agent. De melding zegt alleen dat er een verzoek wacht.
push-is-on = Meldingen staan aan op deze telefoon.
push-is-off = Meldingen staan uit: open de app om wachtende verzoeken te zien.
push-turn-on = Meldingen aanzetten
push-turn-off = Meldingen uitzetten
push-now-on = Meldingen staan aan.
push-now-off = Meldingen staan uit.
push-blocked = Meldingen zijn geblokkeerd voor deze app. Sta ze toe in de site-instellingen van je browser en probeer het opnieuw.
push-notice-title = Er wacht een verzoek op je
push-notice-body = Open scanid om te zien wie het vraagt, en keur goed of weiger.
