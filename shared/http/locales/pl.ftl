# Strony logowania scanid po polsku. Te same komunikaty i zmienne co en.ftl.

## Każda strona

brand = scanid
language-label = Język
language-change = Zmień

## Strona logowania (kod QR)

qr-title = Zaloguj się
qr-heading = Zaloguj się do { $client }
qr-device-client = { $client } (kod { $code })
qr-scan = Zeskanuj ten kod aplikacją scanid, aby się zalogować.
qr-alt = Kod QR. Zawiera ten link: { $link }
self-registered = { $client } sam zarejestrował się w tej usłudze: nikt nie sprawdził tej nazwy.
qr-on-phone = Jesteś na telefonie?
qr-open-app = Otwórz aplikację scanid
qr-waiting = Czekam na aplikację…
qr-passkey = Zaloguj się kluczem dostępu
qr-no-app = Nie masz jeszcze aplikacji? Zeskanuj kod aparatem telefonu: otworzy się aplikacja internetowa scanid, w której się zarejestrujesz.
qr-web-app = Otwórz aplikację internetową scanid
qr-get-app = Albo pobierz aplikację:
qr-pick = Wybierz { $number } w aplikacji scanid
qr-scanned-pick = Zeskanowano. Na telefonie wybierz liczbę widoczną tutaj.
qr-scanned = Zeskanowano. Potwierdź na telefonie…
qr-gone = To żądanie logowania jest już nieważne.
qr-expired = Ten kod QR wygasł.
qr-restart = Zacznij od nowa
qr-wrong-number = Liczba wybrana na telefonie nie zgadzała się z tą widoczną tutaj. To logowanie zostało anulowane.
qr-second-device = Drugi telefon zeskanował ten kod. To logowanie zostało anulowane: jeśli to nie Ty, ktoś mógł przekazać dalej Twój kod logowania.
qr-denied = Odrzucono. Przechodzę dalej…
qr-approved = Zatwierdzono. Przechodzę dalej…
passkey-waiting = Czekam na Twój klucz dostępu…
passkey-signed-in = Zalogowano. Przechodzę dalej…
passkey-failed = Logowanie kluczem dostępu nie powiodło się: { $reason }. Spróbuj ponownie albo zeskanuj kod QR.
passkey-cancelled = anulowano

## Strona zgody

consent-title = Zezwól na dostęp
consent-heading = { $client } chce uzyskać dostęp do Twojego konta scanid
consent-logged-in-as = Zalogowano jako { $name } (@{ $user })
consent-will-receive = { $client } otrzyma:
consent-resources = oraz dostęp, w Twoim imieniu, do:
consent-deny = Odmów
consent-allow = Zezwól
consent-sent-back = Wrócisz do { $host }.
consent-agent = { $client } jest agentem: jeśli się zgodzisz, będzie mógł także działać w Twoim imieniu, w granicach tego dostępu, a każdy token, którego użyje, wskaże, że działa w Twoim imieniu. W każdej chwili możesz to cofnąć w aplikacji scanid.
scope-openid = Twoje identyfikatory scanid (podmiot i identyfikator usługi)
scope-profile = Twoja nazwa użytkownika, nazwa wyświetlana, zdjęcie profilowe, data ostatniej zmiany profilu i grupy, do których należysz
scope-groups = Grupy, do których należysz
scope-address = Twój kraj
scope-offline_access = Dostęp, gdy nie korzystasz z aplikacji (dostęp offline)
scope-other = Inne dane
claim-name = Twoja nazwa wyświetlana
claim-preferred_username = Twoja nazwa użytkownika
claim-picture = Twoje zdjęcie profilowe
claim-updated_at = Data ostatniej zmiany Twojego profilu

## Strona kodu urządzenia (RFC 8628)

device-title = Połącz urządzenie
device-enter = Wpisz kod wyświetlany na urządzeniu.
device-code = Kod
device-continue = Dalej
device-on-phone = Jesteś na telefonie ze swoim scanid?
device-approve-in-app = Zatwierdź w aplikacji scanid
device-then = Potem zaloguj się aplikacją scanid. Wpisuj tylko kod z urządzenia, które właśnie sam konfigurujesz.
device-not-from-page = Ten kod nie został wysłany z tej strony (wysłała go inna witryna albo strona była zbyt stara). Wpisz tutaj kod wyświetlany na urządzeniu.
device-unknown-code = Ten kod jest nieprawidłowy, wygasł albo został już użyty. Sprawdź kod na urządzeniu albo zacznij tam od nowa.
device-connected = Urządzenie połączone
device-connected-text = { $client } jest teraz połączone z Twoim kontem scanid. Możesz zamknąć to okno i wrócić do urządzenia.
device-refused = Urządzenie niepołączone
device-refused-text = Odmówiono { $client }: urządzenie nie zostało połączone. Możesz zamknąć to okno.

## Logowanie (form_post) i wylogowanie

signing-in-title = Logowanie
signing-in = Trwa logowanie…
continue = Dalej
logout-title = Wyloguj się
logout-heading = Wylogować się ze scanid?
logout-button = Wyloguj się
logged-out-title = Wylogowano
logged-out-heading = Wylogowano Cię
logged-out-text = Możesz zamknąć to okno.

## Strony błędów

error-details = Szczegóły:
error-request-invalid = To żądanie logowania jest nieprawidłowe
error-request-invalid-text = Aplikacja wysłała żądanie logowania, którego scanid nie może przyjąć. Wróć do aplikacji i spróbuj ponownie; jeśli to się powtórzy, powiadom jej twórców.
error-login-not-found = Nie znaleziono żądania logowania
error-login-not-found-text = To żądanie logowania nie istnieje albo wygasło. Zacznij od nowa w aplikacji.
error-wrong-browser = Niewłaściwa przeglądarka
error-wrong-browser-text = To logowanie można dokończyć tylko w przeglądarce, w której się zaczęło.
error-expired = Żądanie logowania wygasło
error-expired-text = To żądanie logowania wygasło. Zacznij od nowa w aplikacji.
error-completed = Już zakończone
error-completed-text = To żądanie logowania zostało już zakończone. Zacznij od nowa w aplikacji.
error-not-approved = Jeszcze niezatwierdzone
error-not-approved-text = Najpierw zeskanuj kod QR aplikacją scanid i zatwierdź logowanie.
error-unknown-app = Nieznana aplikacja
error-unknown-app-text = Aplikacja, która rozpoczęła to logowanie, już nie istnieje.
error-refused = Żądanie odrzucone
error-forged-text = Ten formularz nie został wysłany ze strony zgody.
error-no-choice = Wybierz: zezwól albo odmów
error-no-choice-text = Formularz zgody był niekompletny.
error-logout-invalid = Nieprawidłowe żądanie wylogowania
error-logout-repeated-text = Parametr się powtarza.
error-logout-invalid-text = scanid nie może wykonać tego żądania wylogowania.
error-logout-refused-text = To wylogowanie nie zostało potwierdzone na stronie wylogowania scanid.
error-failed = Coś poszło nie tak
error-failed-text = Spróbuj ponownie.
error-unavailable = Chwilowo niedostępne
error-unavailable-text = scanid nie może teraz dokończyć tego kroku. Spróbuj ponownie za chwilę.
error-rate-limited = Zbyt wiele prób logowania
error-rate-limited-text = Odczekaj minutę i spróbuj ponownie.
