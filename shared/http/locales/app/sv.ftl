# scanid-webbappen, svenska (hålls till en.ftl).

shell-loading = Laddar …
shell-noscript = scanid-webbappen behöver JavaScript. Du kan också hämta appen:
shell-description = Din scanid-identitet: skapa ett konto och godkänn inloggningar genom att skanna deras QR-kod.

language = Språk
back = Tillbaka
cancel = Avbryt
done = Klar
go-home = Till mitt scanid
unknown = okänd
details = Detaljer
offline = Tjänsten går inte att nå. Är du uppkopplad?
failed = Något gick fel
insecure-title = scanid behöver en säker anslutning
insecure-text = Öppna den här sidan via https. scanid-appen förvarar sin nyckel med webbläsarens kryptografi, som bara fungerar på säkra sidor.

welcome = Välkommen! Ditt scanid är klart.
signup-title = Skapa ditt scanid
signup-intro = Din identitet finns på den här telefonen: en nyckel skapas här och lämnar den aldrig.
signup-name = Namn (ditt unika användarnamn)
signup-name-hint = 3 till 32 tecken av a–z, 0–9, punkt, understreck, bindestreck.
display-name = Visningsnamn
signup-country = Land (två bokstäver, t.ex. SE)
signup-country-hint = ISO 3166-1-kod, versaler.
signup-submit = Skapa mitt scanid
signup-available = ”{ $name }” är ledigt.
signup-taken = ”{ $name }” är upptaget. Välj ett annat namn.
signup-check = Kontrollera de markerade fälten.
signup-photo-failed = Din identitet skapades, men fotot sparades inte: { $reason }
photo = Foto (kamera eller fil)
photo-hint = JPEG, PNG eller WebP, högst 1 MB. Valfritt.
photo-too-large = Fotot är större än 1 MB; välj ett mindre.
edit-title = Redigera profil
edit-save = Spara
edit-saved = Profilen sparades.

home-title = Ditt scanid
home-identity = Din identitet
home-service-id = Tjänste-ID
home-how = För att logga in någonstans skannar du QR-koden på inloggningssidan med telefonens kamera. Länken öppnas här.
home-manage = Hantera
home-activity = Senaste inloggningar
home-keys = Nycklar och passkeys
home-agents = Agenter som agerar för dig
home-rotate = Byt enhetsnyckel
home-sign-out = Logga ut överallt
home-delete = Radera identitet

keys-upgrade = Använd en passkey på den här telefonen
keys-add = Lägg till en passkey
keys-upgrade-why = Med en passkey frågar varje godkännande efter ditt fingeravtryck, ansikte eller din PIN-kod: den som håller din upplåsta telefon kan inte godkänna åt dig. Din nuvarande nyckel lämnar över till passkeyn och slutar sedan användas.
keys-last-used = Senast använd { $when }
keys-last-used-from = Senast använd { $when } från { $place }
keys-not-used = Inte använd än
keys-removed = Nyckeln togs bort.
keys-remove = Ta bort
keys-remove-confirm = Ja, ta bort
keys-remove-sign-out = Den har kommit bort eller kan ha kopierats: logga också ut överallt
keys-last-key = Det här är din sista nyckel: lägg till en till innan du tar bort den.
keys-this-phone = (den här telefonen)
keys-passkey = Passkey
passkey-name = Den här telefonen
keys-passkey-level = Tillagd med enhetsnyckeln: dess inloggningar räknas som enhetsnyckelns (ingen nivå med fingeravtryck, ansikte eller PIN).
keys-device-key = Enhetsnyckel
keys-device-key-note = Signerar utan att be dig låsa upp

rotate-text = En ny nyckel skapas på den här telefonen. Den gamla nyckeln lämnar över till den och slutar fungera direkt.
rotate-also = Logga också ut överallt
rotate-also-hint = Avslutar varje inloggning gjord med scanid: varje app och webbplats ber dig logga in igen. Välj det om någon annan kan ha haft din telefon.
rotate-confirm = Byt nyckeln
rotate-done = En ny enhetsnyckel är på plats; den gamla fungerar inte längre.
rotate-done-everywhere = En ny enhetsnyckel är på plats; den gamla fungerar inte längre, och du är utloggad överallt.
sign-out-text = Avslutar varje inloggning gjord med scanid, på alla enheter: varje app och webbplats får veta det och ber dig logga in igen. Dina nycklar förblir som de är.
sign-out-lost = Har en telefon eller en passkey kommit bort, eller kan den ha kopierats? Ta bort den under ”Nycklar och passkeys” (som erbjuder även detta) och logga sedan ut överallt.
signed-out = { $count ->
    [one] Du är utloggad överallt: { $count } session avslutades, och varje app och webbplats ber dig logga in igen.
   *[other] Du är utloggad överallt: { $count } sessioner avslutades, och varje app och webbplats ber dig logga in igen.
}
delete-text = Det här raderar din scanid-identitet hos tjänsten: din profil och ditt foto, dina inloggningar överallt och nyckeln på den här telefonen. Ditt namn blir ledigt för andra. Det går inte att ångra.
delete-label = Skriv ditt namn ({ $name }) för att bekräfta
delete-mismatch = Skriv ditt namn, { $name }, för att bekräfta.
delete-confirm = Radera min identitet
delete-done = Din identitet raderades. Du kan skapa en ny.

activity-none = Inga inloggningar än.
activity-approved = godkänd
activity-denied = nekad
activity-refused = stoppad (tillämpningen tillåter den inte)
activity-wrong-number = avbruten (fel siffra valdes)
activity-second-device = avbruten (en andra telefon skannade den)
activity-sso = redan inloggad: ingen skanning
activity-from = från { $place } · { $browser }
activity-unknown-browser = okänd webbläsare
activity-reported = Rapporterad som inte du.
activity-not-me = Det var inte jag
activity-ask = Logga ut den här inloggningen till { $client }? Dess åtkomst dras in direkt och { $client } meddelas.
activity-yes = Ja, logga ut den
activity-done-session = Klart: { $client } loggades ut från den inloggningen och dess åtkomst drogs in.
activity-done-tokens = Klart: den inloggningens åtkomst till { $client } drogs in (sessionen hade redan upphört).
activity-done-nothing = Rapporterad. Ingen session eller åtkomst från den inloggningen fanns kvar att avsluta.

place-unknown = okänd adress
place-network = nätverk { $network }
where-started-from = Startad från
where-this-phone = Den här telefonen
where-asked-at = Begärd
where-warning = Varning:
flag-location-mismatch = Den startades i ett annat land än det den här telefonen är i.
flag-first-from-here = Du har aldrig godkänt en inloggning från den platsen.
flag-high-usage = Många inloggningar har begärts för din identitet den senaste timmen.
where-refused = { $client } tillåter inte en inloggning med de här varningarna: den kan inte godkännas.
where-deny-it = Neka den.

scan-reading = Läser koden …
scan-expired = Koden har gått ut
scan-gone = Inloggningen väntar inte längre, eller så var koden gammal. Skanna koden på inloggningssidan igen.
scan-new = { $client } ber dig logga in med scanid. Du har inget scanid på den här telefonen än: skapa ett och godkänn sedan.
code-not-waiting = Koden väntar inte
code-invalid = Koden är ogiltig, har gått ut eller har använts. Börja om på enheten.

scope-openid = Dina scanid-identifierare (subjekt och tjänste-ID)
scope-profile = Ditt användarnamn, visningsnamn, profilfoto, när din profil senast ändrades och grupperna du tillhör
scope-groups = Grupperna du tillhör
scope-address = Ditt land
scope-offline-access = Åtkomst när du inte använder appen (offlineåtkomst)
login-title = Logga in på { $client }?
connect-title = Ansluta { $client }?
asks-for = { $client } begär:
asks-for-at = { $client } på { $host } begär:
an-app = en app
resources = och åtkomst, som du, till:
self-registered = { $client } registrerade sig själv hos den här tjänsten: ingen har kontrollerat namnet.
approve-as = Som { $user } · till { $time }
agent = { $browser } på { $os }
started-here = Startad på den här telefonen.
started-elsewhere = Inloggningen startades på en annan enhet.
address = Adress
browser = Webbläsare
approve-only-if = Godkänn bara om du själv startade inloggningen, alldeles nyss, på en skärm framför dig. Om någon skickade koden till dig, neka.
device-check = Kontrollera att enheten visar den här koden:
device-address = Enhetens adress
device-calls-itself = Enheten kallar sig (dess egen uppgift, okontrollerad)
device-notice = En enhetskod är en begäran från en enhet. Godkänn bara om du håller i enheten (eller den står framför dig) och den visar den här koden. Ingen behöver att du godkänner en kod som de skickat till dig, läst upp för dig eller bett dig skriva in: om det är så du fick den, neka.
device-differ = Om koderna skiljer sig åt, neka.
pick = Välj siffran som visas på inloggningsskärmen:
pick-passkey = Telefonen ber sedan om ditt fingeravtryck, ansikte eller skärmlås för att godkänna.
number-here = Startad i den här webbläsaren: dess inloggningssida visade { $number }.
arming = Knapparna fungerar först en kort stund efter att skärmen visas, så att en oavsiktlig tryckning inte godkänner.
approve = Godkänn
deny = Neka
approved-title = Inloggningen godkänd
denied-title = Inloggningen nekad
cancelled-title = Inloggningen avbruten
approved-text = Du loggar in på { $client }. Fortsätt på skärmen där du började.
approved-device = { $client } är ansluten. Fortsätt på enheten.
denied-text = { $client } har fått veta att du sa nej.
refused = { $client } tillåter inte den här inloggningen: { $reason }. Den avbröts.
not-waiting = Inloggningen väntar inte längre (den gick ut eller har avgjorts). Skanna koden igen.

# The agents acting for the person (token exchange)
agents-text = Appar som du har låtit agera för dig på andra ställen, med högst den åtkomst du gav dem. Dra tillbaka en så slutar den agera för dig direkt.
agents-none = Ingen agent agerar för dig.
agents-since = Tillåten { $when }
agents-scopes = Får använda: { $scopes }
agents-resources = Hos: { $resources }
agents-withdraw = Dra tillbaka
agents-ask = Ska { $client } sluta agera för dig? Dess åtkomst för din räkning upphör direkt, och nästa inloggning frågar dig igen.
agents-withdrawn = Tillbakadraget: { $client } kan inte längre agera för dig.

# Requests waiting for the person (OpenID CIBA)
waiting-title = Förfrågningar som väntar på dig
waiting-none = Ingen förfrågan väntar på dig.
waiting-open = Öppna
waiting-asked = Frågade kl. { $time }
waiting-gone = Den här förfrågan väntar inte längre (den har gått ut eller avgjorts).
binding-message = Den som frågar ska visa dig exakt samma meddelande:
binding-none = Förfrågan kom utan något meddelande att jämföra med.
binding-check = Godkänn bara om du har kontakt med den här tjänsten just nu (i ett samtal, vid en kassa, med din agent) och det den visar dig stämmer. Om du inte väntade dig förfrågan, neka.
approve-agent = { $client } är en agent: om du tillåter kan den också agera för dig med högst den här åtkomsten, och varje token den använder anger att den agerar för dig. Du kan när som helst dra tillbaka detta i scanid-appen.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = Aviseringar
push-text = Få en avisering på den här telefonen när någon frågar efter dig via bakkanalen: ett callcenter, en kassa eller en agent. Den säger bara att en begäran väntar.
push-is-on = Aviseringar är på på den här telefonen.
push-is-off = Aviseringar är av: öppna appen för att se väntande begäranden.
push-turn-on = Slå på aviseringar
push-turn-off = Stäng av aviseringar
push-now-on = Aviseringar är på.
push-now-off = Aviseringar är av.
push-blocked = Aviseringar är blockerade för den här appen. Tillåt dem i webbläsarens webbplatsinställningar och försök igen.
push-notice-title = En begäran väntar på dig
push-notice-body = Öppna scanid för att se vem som frågar, och godkänn eller neka.
