# Aplikacja webowa scanid, polski (zgodna z en.ftl).

shell-loading = Ładowanie…
shell-noscript = Aplikacja webowa scanid wymaga JavaScriptu. Możesz też pobrać aplikację:
shell-description = Twoja tożsamość scanid: zarejestruj się i zatwierdzaj logowania, skanując ich kod QR.

language = Język
back = Wstecz
cancel = Anuluj
done = Gotowe
go-home = Przejdź do mojego scanid
unknown = nieznane
details = Szczegóły
offline = Nie można połączyć się z usługą. Czy masz internet?
failed = Coś poszło nie tak
insecure-title = scanid wymaga bezpiecznego połączenia
insecure-text = Otwórz tę stronę przez https. Aplikacja scanid przechowuje swój klucz za pomocą kryptografii przeglądarki, która działa tylko na bezpiecznych stronach.

welcome = Witaj! Twój scanid jest gotowy.
signup-title = Utwórz swój scanid
signup-intro = Twoja tożsamość mieszka na tym telefonie: klucz powstaje tutaj i nigdy go nie opuszcza.
signup-name = Nazwa (Twój unikalny identyfikator)
signup-name-hint = Od 3 do 32 znaków spośród a–z, 0–9, kropki, podkreślenia i łącznika.
display-name = Nazwa wyświetlana
signup-country = Kraj (dwie litery, np. PL)
signup-country-hint = Kod ISO 3166-1, wielkimi literami.
signup-submit = Utwórz mój scanid
signup-available = „{ $name }” jest wolna.
signup-taken = „{ $name }” jest zajęta. Wybierz inną nazwę.
signup-check = Sprawdź zaznaczone pola.
signup-photo-failed = Tożsamość została utworzona, ale zdjęcie nie zostało zapisane: { $reason }
photo = Zdjęcie (aparat lub plik)
photo-hint = JPEG, PNG lub WebP, najwyżej 1 MB. Opcjonalnie.
photo-too-large = To zdjęcie ma więcej niż 1 MB; wybierz mniejsze.
edit-title = Edytuj profil
edit-save = Zapisz
edit-saved = Profil zapisany.

home-title = Twój scanid
home-identity = Twoja tożsamość
home-service-id = Identyfikator usługi
home-how = Aby się gdzieś zalogować, zeskanuj kod QR ze strony logowania aparatem telefonu. Link otworzy się tutaj.
home-manage = Zarządzaj
home-activity = Ostatnie logowania
home-keys = Klucze i klucze dostępu
home-agents = Agenci działający w Twoim imieniu
home-rotate = Wymień klucz urządzenia
home-sign-out = Wyloguj wszędzie
home-delete = Usuń tożsamość

keys-upgrade = Użyj klucza dostępu na tym telefonie
keys-add = Dodaj klucz dostępu
keys-upgrade-why = Z kluczem dostępu każde zatwierdzenie wymaga odcisku palca, twarzy lub PIN-u: ktoś, kto trzyma Twój odblokowany telefon, nie zatwierdzi niczego za Ciebie. Obecny klucz przekazuje wszystko kluczowi dostępu, a potem zostaje wycofany.
keys-last-used = Ostatnio użyty { $when }
keys-last-used-from = Ostatnio użyty { $when } z { $place }
keys-not-used = Jeszcze nieużywany
keys-removed = Klucz został usunięty.
keys-remove = Usuń
keys-remove-confirm = Tak, usuń
keys-remove-sign-out = Zgubił się lub mógł zostać skopiowany: wyloguj też wszędzie
keys-last-key = To Twój ostatni klucz: dodaj inny, zanim go usuniesz.
keys-this-phone = (ten telefon)
keys-passkey = Klucz dostępu
passkey-name = Ten telefon
keys-passkey-level = Dodany kluczem urządzenia: jego logowania liczą się jak logowania klucza urządzenia (bez poziomu odcisku palca, twarzy lub PIN-u).
keys-device-key = Klucz urządzenia
keys-device-key-note = Podpisuje bez prośby o odblokowanie

rotate-text = Na tym telefonie powstaje nowy klucz. Stary klucz przekazuje mu wszystko i od razu przestaje działać.
rotate-also = Wyloguj też wszędzie
rotate-also-hint = Kończy każde logowanie wykonane przez scanid: każda aplikacja i strona poprosi o ponowne zalogowanie. Wybierz to, jeśli ktoś inny mógł mieć Twój telefon.
rotate-confirm = Wymień klucz
rotate-done = Nowy klucz urządzenia jest gotowy; stary już nie działa.
rotate-done-everywhere = Nowy klucz urządzenia jest gotowy; stary już nie działa, a Ty zostałeś wylogowany wszędzie.
sign-out-text = Kończy każde logowanie wykonane przez scanid na każdym urządzeniu: każda aplikacja i strona dostaje wiadomość i prosi o ponowne zalogowanie. Twoje klucze pozostają bez zmian.
sign-out-lost = Zgubiłeś telefon lub klucz dostępu albo mógł on zostać skopiowany? Usuń go w „Klucze i klucze dostępu” (tam też jest ta opcja), a potem wyloguj się wszędzie.
signed-out = { $count ->
    [one] Wylogowano Cię wszędzie: zakończono { $count } sesję, a każda aplikacja i strona poprosi o ponowne zalogowanie.
    [few] Wylogowano Cię wszędzie: zakończono { $count } sesje, a każda aplikacja i strona poprosi o ponowne zalogowanie.
    [many] Wylogowano Cię wszędzie: zakończono { $count } sesji, a każda aplikacja i strona poprosi o ponowne zalogowanie.
   *[other] Wylogowano Cię wszędzie: zakończono { $count } sesji, a każda aplikacja i strona poprosi o ponowne zalogowanie.
}
delete-text = To usuwa Twoją tożsamość scanid w usłudze: profil i zdjęcie, Twoje logowania wszędzie oraz klucz na tym telefonie. Twoja nazwa stanie się wolna dla innych. Tego nie można cofnąć.
delete-label = Wpisz swoją nazwę ({ $name }), aby potwierdzić
delete-mismatch = Wpisz swoją nazwę, { $name }, aby potwierdzić.
delete-confirm = Usuń moją tożsamość
delete-done = Twoja tożsamość została usunięta. Możesz utworzyć nową.

activity-none = Jeszcze nie ma logowań.
activity-approved = zatwierdzone
activity-denied = odrzucone
activity-refused = zablokowane (aplikacja na to nie pozwala)
activity-wrong-number = anulowane (wybrano złą liczbę)
activity-second-device = anulowane (zeskanował je drugi telefon)
activity-sso = już zalogowany: bez skanowania
activity-from = z { $place } · { $browser }
activity-unknown-browser = nieznana przeglądarka
activity-reported = Zgłoszone jako „to nie ja”.
activity-not-me = To nie byłem ja
activity-ask = Wylogować to logowanie do { $client }? Jego dostęp zostanie od razu cofnięty, a { $client } dostanie wiadomość.
activity-yes = Tak, wyloguj
activity-done-session = Gotowe: { $client } został wylogowany z tego logowania, a jego dostęp cofnięty.
activity-done-tokens = Gotowe: dostęp tego logowania do { $client } został cofnięty (jego sesja już się zakończyła).
activity-done-nothing = Zgłoszono. Nie było już sesji ani dostępu tego logowania do zakończenia.

place-unknown = nieznany adres
place-network = sieć { $network }
where-started-from = Rozpoczęte z
where-this-phone = Ten telefon
where-asked-at = Prośba z
where-warning = Uwaga:
flag-location-mismatch = Rozpoczęto je w innym kraju niż ten, w którym jest ten telefon.
flag-first-from-here = Nigdy nie zatwierdzałeś logowania z tego miejsca.
flag-high-usage = W ostatniej godzinie poproszono o wiele logowań na Twoją tożsamość.
where-refused = { $client } nie pozwala na logowanie z tymi ostrzeżeniami: nie można go zatwierdzić.
where-deny-it = Odrzuć je.

scan-reading = Odczytywanie kodu…
scan-expired = Ten kod wygasł
scan-gone = Logowanie już nie czeka albo kod był stary. Zeskanuj ponownie kod ze strony logowania.
scan-new = { $client } prosi o zalogowanie przez scanid. Na tym telefonie nie ma jeszcze scanid: utwórz go, a potem zatwierdź.
code-not-waiting = Ten kod nie czeka
code-invalid = Kod jest nieprawidłowy, wygasł lub został użyty. Zacznij od nowa na urządzeniu.

scope-openid = Twoje identyfikatory scanid (podmiot i identyfikator usługi)
scope-profile = Twoja nazwa użytkownika, nazwa wyświetlana, zdjęcie profilowe, data ostatniej zmiany profilu i grupy, do których należysz
scope-groups = Grupy, do których należysz
scope-address = Twój kraj
scope-offline-access = Dostęp, gdy nie używasz aplikacji (dostęp offline)
login-title = Zalogować się do { $client }?
connect-title = Połączyć { $client }?
asks-for = { $client } prosi o:
asks-for-at = { $client } na { $host } prosi o:
an-app = aplikacja
resources = oraz dostęp w Twoim imieniu do:
self-registered = { $client } zarejestrował się w tej usłudze sam: nikt nie sprawdził tej nazwy.
approve-as = Jako { $user } · do { $time }
agent = { $browser } w systemie { $os }
started-here = Rozpoczęte na tym telefonie.
started-elsewhere = To logowanie rozpoczęto na innym urządzeniu.
address = Adres
browser = Przeglądarka
approve-only-if = Zatwierdź tylko wtedy, gdy to logowanie rozpocząłeś sam, przed chwilą, na ekranie przed sobą. Jeśli ktoś przysłał Ci ten kod, odrzuć.
device-check = Sprawdź, czy urządzenie pokazuje ten kod:
device-address = Adres urządzenia
device-calls-itself = Urządzenie przedstawia się jako (jego własna, niesprawdzona deklaracja)
device-notice = Kod urządzenia to prośba od urządzenia. Zatwierdź tylko wtedy, gdy trzymasz to urządzenie (lub masz je przed sobą) i pokazuje ono ten kod. Nikt nie potrzebuje, abyś zatwierdzał kod, który Ci przysłał, przeczytał lub kazał wpisać: jeśli tak go dostałeś, odrzuć.
device-differ = Jeśli kody się różnią, odrzuć.
pick = Wybierz liczbę widoczną na ekranie logowania:
pick-passkey = Telefon poprosi potem o odcisk palca, twarz lub blokadę ekranu, aby zatwierdzić.
number-here = Rozpoczęte w tej przeglądarce: jej strona logowania pokazała { $number }.
arming = Przyciski zaczynają działać chwilę po pojawieniu się tego ekranu, aby przypadkowe dotknięcie niczego nie zatwierdziło.
approve = Zatwierdź
deny = Odrzuć
approved-title = Logowanie zatwierdzone
denied-title = Logowanie odrzucone
cancelled-title = Logowanie anulowane
approved-text = Logujesz się do { $client }. Kontynuuj na ekranie, na którym zacząłeś.
approved-device = { $client } jest połączony. Kontynuuj na urządzeniu.
denied-text = { $client } wie, że odmówiłeś.
refused = { $client } nie pozwala na to logowanie: { $reason }. Zostało anulowane.
not-waiting = To logowanie już nie czeka (wygasło lub zostało rozstrzygnięte). Zeskanuj kod ponownie.

# The agents acting for the person (token exchange)
agents-text = Aplikacje, którym pozwolono działać w Twoim imieniu gdzie indziej, w granicach dostępu, który im dano. Cofnij zgodę, a aplikacja od razu przestanie działać w Twoim imieniu.
agents-none = Żaden agent nie działa w Twoim imieniu.
agents-since = Zgoda { $when }
agents-scopes = Może używać: { $scopes }
agents-resources = W: { $resources }
agents-withdraw = Cofnij
agents-ask = Czy { $client } ma przestać działać w Twoim imieniu? Jego dostęp w Twoim imieniu kończy się od razu, a przy następnym logowaniu zostaniesz zapytany ponownie.
agents-withdrawn = Cofnięto: { $client } nie może już działać w Twoim imieniu.

# Requests waiting for the person (OpenID CIBA)
waiting-title = Prośby, które na ciebie czekają
waiting-none = Żadna prośba na ciebie nie czeka.
waiting-open = Otwórz
waiting-asked = Wysłana o { $time }
waiting-gone = Ta prośba już nie czeka (wygasła lub została rozstrzygnięta).
binding-message = Osoba, która prosi, powinna pokazać ci dokładnie ten komunikat:
binding-none = Ta prośba nie zawiera komunikatu do porównania.
binding-check = Zatwierdź tylko wtedy, gdy właśnie masz do czynienia z tą aplikacją (podczas rozmowy, przy kasie, ze swoim agentem) i to, co ci pokazuje, się zgadza. Jeśli nie spodziewałeś się tej prośby, odrzuć ją.
approve-agent = { $client } jest agentem: jeśli się zgodzisz, będzie mógł także działać w Twoim imieniu, w granicach tego dostępu, a każdy token, którego użyje, wskaże, że działa w Twoim imieniu. W każdej chwili możesz to cofnąć w aplikacji scanid.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = Powiadomienia
push-text = Otrzymuj powiadomienie na tym telefonie, gdy ktoś poprosi o ciebie kanałem zwrotnym: infolinia, kasa lub agent. Mówi ono tylko, że czeka prośba.
push-is-on = Powiadomienia są włączone na tym telefonie.
push-is-off = Powiadomienia są wyłączone: otwórz aplikację, aby zobaczyć oczekujące prośby.
push-turn-on = Włącz powiadomienia
push-turn-off = Wyłącz powiadomienia
push-now-on = Powiadomienia włączone.
push-now-off = Powiadomienia wyłączone.
push-blocked = Powiadomienia są zablokowane dla tej aplikacji. Zezwól na nie w ustawieniach witryny w przeglądarce i spróbuj ponownie.
push-notice-title = Czeka na ciebie prośba
push-notice-body = Otwórz scanid, aby zobaczyć, kto prosi, i zatwierdź lub odrzuć.
