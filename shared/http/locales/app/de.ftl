# Die scanid-Web-App, Deutsch (gehalten an en.ftl).

shell-loading = Wird geladen …
shell-noscript = Die scanid-Web-App braucht JavaScript. Sie können auch die App laden:
shell-description = Ihre scanid-Identität: registrieren Sie sich und bestätigen Sie Anmeldungen, indem Sie ihren QR-Code scannen.

language = Sprache
back = Zurück
cancel = Abbrechen
done = Fertig
go-home = Zu meiner scanid
unknown = unbekannt
details = Details
offline = Der Dienst ist nicht erreichbar. Sind Sie online?
failed = Etwas ist schiefgelaufen
insecure-title = scanid braucht eine sichere Verbindung
insecure-text = Öffnen Sie diese Seite über https. Die scanid-App verwahrt ihren Schlüssel mit der Kryptografie Ihres Browsers, die nur auf sicheren Seiten funktioniert.

welcome = Willkommen! Ihre scanid ist bereit.
signup-title = Ihre scanid erstellen
signup-intro = Ihre Identität lebt auf diesem Telefon: Ein Schlüssel wird hier erzeugt und verlässt es nie.
signup-name = Name (Ihr eindeutiger Benutzername)
signup-name-hint = 3 bis 32 Zeichen aus a–z, 0–9, Punkt, Unterstrich, Bindestrich.
display-name = Anzeigename
signup-country = Land (zwei Buchstaben, z. B. DE)
signup-country-hint = ISO-3166-1-Code, in Großbuchstaben.
signup-submit = Meine scanid erstellen
signup-available = „{ $name }“ ist frei.
signup-taken = „{ $name }“ ist vergeben. Wählen Sie einen anderen Namen.
signup-check = Bitte prüfen Sie die markierten Felder.
signup-photo-failed = Ihre Identität wurde erstellt, aber das Foto wurde nicht gespeichert: { $reason }
photo = Foto (Kamera oder Datei)
photo-hint = JPEG, PNG oder WebP, höchstens 1 MB. Optional.
photo-too-large = Dieses Foto ist größer als 1 MB; wählen Sie ein kleineres.
edit-title = Profil bearbeiten
edit-save = Speichern
edit-saved = Profil gespeichert.

home-title = Ihre scanid
home-identity = Ihre Identität
home-service-id = Dienst-ID
home-how = Um sich irgendwo anzumelden, scannen Sie den QR-Code auf der Anmeldeseite mit der Kamera Ihres Telefons. Der Link öffnet sich hier.
home-manage = Verwalten
home-activity = Letzte Anmeldungen
home-keys = Schlüssel und Passkeys
home-agents = Agenten, die für Sie handeln
home-rotate = Geräteschlüssel ersetzen
home-sign-out = Überall abmelden
home-delete = Identität löschen

keys-upgrade = Einen Passkey auf diesem Telefon verwenden
keys-add = Passkey hinzufügen
keys-upgrade-why = Mit einem Passkey fragt jede Bestätigung nach Ihrem Fingerabdruck, Gesicht oder Ihrer PIN: Wer Ihr entsperrtes Telefon in der Hand hat, kann nicht für Sie bestätigen. Ihr jetziger Schlüssel überträgt alles auf den Passkey und wird dann stillgelegt.
keys-last-used = Zuletzt verwendet { $when }
keys-last-used-from = Zuletzt verwendet { $when } von { $place }
keys-not-used = Noch nicht verwendet
keys-removed = Der Schlüssel wurde entfernt.
keys-remove = Entfernen
keys-remove-confirm = Ja, entfernen
keys-remove-sign-out = Er ging verloren oder wurde vielleicht kopiert: auch überall abmelden
keys-last-key = Das ist Ihr letzter Schlüssel: Fügen Sie einen weiteren hinzu, bevor Sie ihn entfernen.
keys-this-phone = (dieses Telefon)
keys-passkey = Passkey
passkey-name = Dieses Telefon
keys-passkey-level = Mit dem Geräteschlüssel hinzugefügt: Seine Anmeldungen zählen wie die des Geräteschlüssels (ohne Fingerabdruck, Gesicht oder PIN).
keys-device-key = Geräteschlüssel
keys-device-key-note = Signiert, ohne nach Ihrer Entsperrung zu fragen

rotate-text = Auf diesem Telefon wird ein neuer Schlüssel erzeugt. Der alte Schlüssel überträgt alles auf ihn und funktioniert sofort nicht mehr.
rotate-also = Auch überall abmelden
rotate-also-hint = Beendet jede mit scanid gemachte Anmeldung: Jede App und Website bittet Sie erneut um Anmeldung. Wählen Sie das, wenn jemand anderes Ihr Telefon gehabt haben könnte.
rotate-confirm = Schlüssel ersetzen
rotate-done = Ein neuer Geräteschlüssel ist eingerichtet; der alte funktioniert nicht mehr.
rotate-done-everywhere = Ein neuer Geräteschlüssel ist eingerichtet; der alte funktioniert nicht mehr, und Sie sind überall abgemeldet.
sign-out-text = Beendet jede mit scanid gemachte Anmeldung auf jedem Gerät: Jede App und Website wird benachrichtigt und bittet Sie erneut um Anmeldung. Ihre Schlüssel bleiben, wie sie sind.
sign-out-lost = Ging ein Telefon oder ein Passkey verloren, oder wurde er vielleicht kopiert? Entfernen Sie ihn unter „Schlüssel und Passkeys“ (dort geht auch das hier), und melden Sie sich dann überall ab.
signed-out = { $count ->
    [one] Sie sind überall abgemeldet: { $count } Sitzung beendet, und jede App und Website bittet Sie erneut um Anmeldung.
   *[other] Sie sind überall abgemeldet: { $count } Sitzungen beendet, und jede App und Website bittet Sie erneut um Anmeldung.
}
delete-text = Damit wird Ihre scanid-Identität beim Dienst gelöscht: Ihr Profil und Foto, Ihre Anmeldungen überall und der Schlüssel auf diesem Telefon. Ihr Name wird für andere frei. Das lässt sich nicht rückgängig machen.
delete-label = Geben Sie zur Bestätigung Ihren Namen ({ $name }) ein
delete-mismatch = Geben Sie zur Bestätigung Ihren Namen ein: { $name }.
delete-confirm = Meine Identität löschen
delete-done = Ihre Identität wurde gelöscht. Sie können eine neue erstellen.

activity-none = Noch keine Anmeldungen.
activity-approved = bestätigt
activity-denied = abgelehnt
activity-refused = verweigert (die Anwendung erlaubt sie nicht)
activity-wrong-number = abgebrochen (eine falsche Zahl wurde gewählt)
activity-second-device = abgebrochen (ein zweites Telefon hat gescannt)
activity-sso = schon angemeldet: ohne Scan
activity-from = von { $place } · { $browser }
activity-unknown-browser = unbekannter Browser
activity-reported = Als „nicht ich“ gemeldet.
activity-not-me = Das war ich nicht
activity-ask = Diese Anmeldung bei { $client } beenden? Ihr Zugriff wird sofort widerrufen, und { $client } wird benachrichtigt.
activity-yes = Ja, beenden
activity-done-session = Erledigt: { $client } wurde von dieser Anmeldung abgemeldet und ihr Zugriff widerrufen.
activity-done-tokens = Erledigt: Der Zugriff dieser Anmeldung auf { $client } wurde widerrufen (ihre Sitzung war schon beendet).
activity-done-nothing = Gemeldet. Zu dieser Anmeldung war keine Sitzung und kein Zugriff mehr zu beenden.

place-unknown = unbekannte Adresse
place-network = Netz { $network }
where-started-from = Gestartet von
where-this-phone = Dieses Telefon
where-asked-at = Angefragt am
where-warning = Warnung:
flag-location-mismatch = Sie wurde in einem anderen Land gestartet, als in dem dieses Telefon ist.
flag-first-from-here = Von diesem Ort haben Sie noch nie eine Anmeldung bestätigt.
flag-high-usage = In der letzten Stunde wurden viele Anmeldungen für Ihre Identität angefragt.
where-refused = { $client } erlaubt keine Anmeldung mit diesen Warnungen: Sie kann nicht bestätigt werden.
where-deny-it = Lehnen Sie sie ab.

scan-reading = Code wird gelesen …
scan-expired = Dieser Code ist abgelaufen
scan-gone = Die Anmeldung wartet nicht mehr, oder der Code war alt. Scannen Sie den Code auf der Anmeldeseite erneut.
scan-new = { $client } bittet Sie, sich mit scanid anzumelden. Auf diesem Telefon gibt es noch keine scanid: Erstellen Sie eine und bestätigen Sie dann.
code-not-waiting = Dieser Code wartet nicht
code-invalid = Der Code ist ungültig, abgelaufen oder wurde schon verwendet. Beginnen Sie auf dem Gerät von vorn.

scope-openid = Ihre scanid-Kennungen (Subjekt und Dienst-ID)
scope-profile = Ihr Benutzername, Anzeigename, Profilbild, die letzte Änderung Ihres Profils und die Gruppen, denen Sie angehören
scope-groups = Die Gruppen, denen Sie angehören
scope-address = Ihr Land
scope-offline-access = Zugriff, während Sie die App nicht nutzen (Offline-Zugriff)
login-title = Bei { $client } anmelden?
connect-title = { $client } verbinden?
asks-for = { $client } fragt nach:
asks-for-at = { $client } auf { $host } fragt nach:
an-app = einer App
resources = und Zugriff in Ihrem Namen auf:
self-registered = { $client } hat sich selbst bei diesem Dienst registriert: Niemand hat diesen Namen geprüft.
approve-as = Als { $user } · bis { $time }
agent = { $browser } unter { $os }
started-here = Auf diesem Telefon gestartet.
started-elsewhere = Diese Anmeldung wurde auf einem anderen Gerät gestartet.
address = Adresse
browser = Browser
approve-only-if = Bestätigen Sie nur, wenn Sie diese Anmeldung selbst gestartet haben, gerade eben, auf einem Bildschirm vor Ihnen. Wenn Ihnen jemand diesen Code geschickt hat, lehnen Sie ab.
device-check = Prüfen Sie, ob das Gerät diesen Code zeigt:
device-address = Die Adresse des Geräts
device-calls-itself = Das Gerät nennt sich (seine eigene, ungeprüfte Angabe)
device-notice = Ein Gerätecode ist eine Anfrage eines Geräts. Bestätigen Sie nur, wenn Sie dieses Gerät in der Hand haben (oder es vor Ihnen steht) und es diesen Code zeigt. Niemand braucht Ihre Bestätigung für einen Code, den er Ihnen geschickt, vorgelesen oder zum Eintippen gegeben hat: Wenn Sie ihn so bekommen haben, lehnen Sie ab.
device-differ = Wenn die Codes verschieden sind, lehnen Sie ab.
pick = Wählen Sie die Zahl, die auf dem Anmeldebildschirm steht:
pick-passkey = Ihr Telefon fragt dann zur Bestätigung nach Fingerabdruck, Gesicht oder Displaysperre.
number-here = In diesem Browser gestartet: Seine Anmeldeseite zeigte { $number }.
arming = Die Schaltflächen reagieren erst einen Moment, nachdem dieser Bildschirm erscheint, damit ein versehentliches Tippen nichts bestätigt.
approve = Bestätigen
deny = Ablehnen
approved-title = Anmeldung bestätigt
denied-title = Anmeldung abgelehnt
cancelled-title = Anmeldung abgebrochen
approved-text = Sie werden bei { $client } angemeldet. Machen Sie auf dem Bildschirm weiter, auf dem Sie begonnen haben.
approved-device = { $client } ist verbunden. Machen Sie auf dem Gerät weiter.
denied-text = { $client } wurde mitgeteilt, dass Sie abgelehnt haben.
refused = { $client } erlaubt diese Anmeldung nicht: { $reason }. Sie wurde abgebrochen.
not-waiting = Diese Anmeldung wartet nicht mehr (sie ist abgelaufen oder wurde entschieden). Scannen Sie den Code erneut.

# The agents acting for the person (token exchange)
agents-text = Anwendungen, denen Sie erlaubt haben, anderswo für Sie zu handeln, mit höchstens dem Zugriff, den Sie ihnen gegeben haben. Widerrufen Sie eine, handelt sie sofort nicht mehr für Sie.
agents-none = Kein Agent handelt für Sie.
agents-since = Erlaubt { $when }
agents-scopes = Darf verwenden: { $scopes }
agents-resources = Bei: { $resources }
agents-withdraw = Widerrufen
agents-ask = Soll { $client } nicht mehr für Sie handeln? Sein Zugriff in Ihrem Namen endet sofort, und bei der nächsten Anmeldung werden Sie erneut gefragt.
agents-withdrawn = Widerrufen: { $client } kann nicht mehr für Sie handeln.

# Requests waiting for the person (OpenID CIBA)
waiting-title = Anfragen, die auf Sie warten
waiting-none = Keine Anfrage wartet auf Sie.
waiting-open = Öffnen
waiting-asked = Gestellt um { $time }
waiting-gone = Diese Anfrage wartet nicht mehr (sie ist abgelaufen oder wurde entschieden).
binding-message = Wer fragt, sollte Ihnen genau diese Nachricht zeigen:
binding-none = Diese Anfrage kam ohne Nachricht zum Vergleichen.
binding-check = Bestätigen Sie nur, wenn Sie gerade mit dieser Anwendung zu tun haben (am Telefon, an einer Kasse, mit Ihrem Agenten) und das, was sie Ihnen zeigt, übereinstimmt. Wenn Sie diese Anfrage nicht erwartet haben, lehnen Sie ab.
approve-agent = { $client } ist ein Agent: Wenn Sie zustimmen, darf er auch in Ihrem Namen handeln, mit höchstens diesem Zugriff, und jedes Token, das er verwendet, nennt ihn als für Sie handelnd. Sie können dies jederzeit in der scanid-App widerrufen.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = Benachrichtigungen
push-text = Erhalte eine Benachrichtigung auf diesem Telefon, wenn dich jemand über den Rückkanal anfragt: ein Callcenter, eine Kasse oder ein Agent. Sie sagt nur, dass eine Anfrage wartet.
push-is-on = Benachrichtigungen sind auf diesem Telefon an.
push-is-off = Benachrichtigungen sind aus: Öffne die App, um wartende Anfragen zu sehen.
push-turn-on = Benachrichtigungen einschalten
push-turn-off = Benachrichtigungen ausschalten
push-now-on = Benachrichtigungen sind an.
push-now-off = Benachrichtigungen sind aus.
push-blocked = Benachrichtigungen sind für diese App blockiert. Erlaube sie in den Website-Einstellungen deines Browsers und versuche es erneut.
push-notice-title = Eine Anfrage wartet auf dich
push-notice-body = Öffne scanid, um zu sehen, wer fragt, und bestätige oder lehne ab.
