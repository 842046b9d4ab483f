# Die Anmeldeseiten von scanid auf Deutsch. Dieselben Nachrichten und Platzhalter wie en.ftl.

## Jede Seite

brand = scanid
language-label = Sprache
language-change = Wechseln

## Die Anmeldeseite (der QR-Code)

qr-title = Anmelden
qr-heading = Bei { $client } anmelden
qr-device-client = { $client } (Code { $code })
qr-scan = Scannen Sie diesen Code mit der scanid-App, um sich anzumelden.
qr-alt = QR-Code. Er enthält diesen Link: { $link }
self-registered = { $client } hat sich selbst bei diesem Dienst registriert: Niemand hat diesen Namen geprüft.
qr-on-phone = Auf dem Smartphone?
qr-open-app = scanid-App öffnen
qr-waiting = Warten auf die App…
qr-passkey = Mit einem Passkey anmelden
qr-no-app = Noch keine App? Scannen Sie den Code mit der Kamera Ihres Smartphones: Er öffnet die scanid-Web-App, in der Sie sich registrieren.
qr-web-app = scanid-Web-App öffnen
qr-get-app = Oder laden Sie die App:
qr-pick = Wählen Sie { $number } in der scanid-App
qr-scanned-pick = Gescannt. Wählen Sie auf Ihrem Smartphone die hier angezeigte Zahl.
qr-scanned = Gescannt. Bestätigen Sie auf Ihrem Smartphone…
qr-gone = Diese Anmeldeanfrage ist nicht mehr gültig.
qr-expired = Dieser QR-Code ist abgelaufen.
qr-restart = Neu beginnen
qr-wrong-number = Die auf dem Smartphone gewählte Zahl stimmte nicht mit der hier angezeigten überein. Diese Anmeldung wurde abgebrochen.
qr-second-device = Ein zweites Smartphone hat diesen Code gescannt. Diese Anmeldung wurde abgebrochen: Falls Sie das nicht waren, hat vielleicht jemand Ihren Anmeldecode weitergeleitet.
qr-denied = Abgelehnt. Es geht weiter…
qr-approved = Bestätigt. Es geht weiter…
passkey-waiting = Warten auf Ihren Passkey…
passkey-signed-in = Angemeldet. Es geht weiter…
passkey-failed = Anmeldung mit Passkey fehlgeschlagen: { $reason }. Versuchen Sie es erneut oder scannen Sie den QR-Code.
passkey-cancelled = abgebrochen

## Die Zustimmungsseite

consent-title = Zugriff erlauben
consent-heading = { $client } möchte auf Ihr scanid-Konto zugreifen
consent-logged-in-as = Angemeldet als { $name } (@{ $user })
consent-will-receive = { $client } erhält:
consent-resources = und Zugriff, in Ihrem Namen, auf:
consent-deny = Ablehnen
consent-allow = Erlauben
consent-sent-back = Sie werden zu { $host } zurückgeleitet.
consent-agent = { $client } ist ein Agent: Wenn Sie zustimmen, darf er auch in Ihrem Namen handeln, mit höchstens diesem Zugriff, und jedes Token, das er verwendet, nennt ihn als für Sie handelnd. Sie können dies jederzeit in der scanid-App widerrufen.
scope-openid = Ihre scanid-Kennungen (Subjekt und Dienst-ID)
scope-profile = Ihr Benutzername, Anzeigename, Profilbild, die letzte Änderung Ihres Profils und die Gruppen, denen Sie angehören
scope-groups = Die Gruppen, denen Sie angehören
scope-address = Ihr Land
scope-offline_access = Zugriff, während Sie die App nicht verwenden (Offline-Zugriff)
scope-other = Weitere Daten
claim-name = Ihr Anzeigename
claim-preferred_username = Ihr Benutzername
claim-picture = Ihr Profilbild
claim-updated_at = Wann Ihr Profil zuletzt geändert wurde

## Die Gerätecode-Seite (RFC 8628)

device-title = Gerät verbinden
device-enter = Geben Sie den Code ein, den Ihr Gerät anzeigt.
device-code = Code
device-continue = Weiter
device-on-phone = Auf dem Smartphone mit Ihrer scanid?
device-approve-in-app = In der scanid-App bestätigen
device-then = Melden Sie sich dann mit der scanid-App an. Geben Sie nur einen Code ein, den Sie von einem Gerät haben, das Sie gerade selbst einrichten.
device-not-from-page = Dieser Code wurde nicht von dieser Seite gesendet (eine andere Website hat ihn gesendet, oder die Seite war zu alt). Geben Sie hier den Code ein, den Ihr Gerät anzeigt.
device-unknown-code = Dieser Code ist ungültig, abgelaufen oder wurde schon verwendet. Prüfen Sie den Code auf Ihrem Gerät, oder beginnen Sie dort neu.
device-connected = Gerät verbunden
device-connected-text = { $client } ist jetzt mit Ihrem scanid-Konto verbunden. Sie können dieses Fenster schließen und zum Gerät zurückkehren.
device-refused = Gerät nicht verbunden
device-refused-text = Sie haben { $client } abgelehnt: Das Gerät wurde nicht verbunden. Sie können dieses Fenster schließen.

## Anmeldung (form_post) und Abmeldung

signing-in-title = Anmeldung
signing-in = Sie werden angemeldet…
continue = Weiter
logout-title = Abmelden
logout-heading = Von scanid abmelden?
logout-button = Abmelden
logged-out-title = Abgemeldet
logged-out-heading = Sie sind abgemeldet
logged-out-text = Sie können dieses Fenster schließen.

## Fehlerseiten

error-details = Details:
error-request-invalid = Diese Anmeldeanfrage ist ungültig
error-request-invalid-text = Die Anwendung hat eine Anmeldeanfrage gesendet, die scanid nicht annehmen kann. Kehren Sie zur Anwendung zurück und versuchen Sie es erneut; wenn es wieder passiert, sagen Sie es ihren Herstellern.
error-login-not-found = Anmeldeanfrage nicht gefunden
error-login-not-found-text = Diese Anmeldeanfrage gibt es nicht oder sie ist abgelaufen. Beginnen Sie in der Anwendung neu.
error-wrong-browser = Falscher Browser
error-wrong-browser-text = Diese Anmeldung kann nur in dem Browser abgeschlossen werden, in dem sie begonnen wurde.
error-expired = Anmeldeanfrage abgelaufen
error-expired-text = Diese Anmeldeanfrage ist abgelaufen. Beginnen Sie in der Anwendung neu.
error-completed = Bereits abgeschlossen
error-completed-text = Diese Anmeldeanfrage wurde bereits abgeschlossen. Beginnen Sie in der Anwendung neu.
error-not-approved = Noch nicht bestätigt
error-not-approved-text = Scannen Sie zuerst den QR-Code mit der scanid-App und bestätigen Sie die Anmeldung.
error-unknown-app = Unbekannte Anwendung
error-unknown-app-text = Die Anwendung, die diese Anmeldung begonnen hat, existiert nicht mehr.
error-refused = Anfrage abgelehnt
error-forged-text = Dieses Formular wurde nicht von der Zustimmungsseite gesendet.
error-no-choice = Erlauben oder ablehnen
error-no-choice-text = Das Zustimmungsformular war unvollständig.
error-logout-invalid = Ungültige Abmeldeanfrage
error-logout-repeated-text = Ein Parameter kommt mehrfach vor.
error-logout-invalid-text = scanid kann diese Abmeldeanfrage nicht ausführen.
error-logout-refused-text = Diese Abmeldung wurde nicht auf der Abmeldeseite von scanid bestätigt.
error-failed = Etwas ist schiefgelaufen
error-failed-text = Bitte versuchen Sie es erneut.
error-unavailable = Vorübergehend nicht verfügbar
error-unavailable-text = scanid kann diesen Schritt gerade nicht abschließen. Bitte versuchen Sie es gleich noch einmal.
error-rate-limited = Zu viele Anmeldeversuche
error-rate-limited-text = Bitte warten Sie eine Minute und versuchen Sie es erneut.
