# La aplicación web de scanid, español (fiel a en.ftl).

shell-loading = Cargando…
shell-noscript = La aplicación web de scanid necesita JavaScript. También puedes descargar la aplicación:
shell-description = Tu identidad scanid: regístrate y aprueba inicios de sesión escaneando su código QR.

language = Idioma
back = Volver
cancel = Cancelar
done = Listo
go-home = Ir a mi scanid
unknown = desconocido
details = Detalles
offline = No se puede contactar con el servicio. ¿Tienes conexión?
failed = Algo salió mal
insecure-title = scanid necesita una conexión segura
insecure-text = Abre esta página por https. La aplicación scanid guarda su clave con la criptografía de tu navegador, que solo funciona en páginas seguras.

welcome = ¡Te damos la bienvenida! Tu scanid está listo.
signup-title = Crea tu scanid
signup-intro = Tu identidad vive en este teléfono: aquí se crea una clave que nunca sale de él.
signup-name = Nombre (tu identificador único)
signup-name-hint = De 3 a 32 caracteres entre a–z, 0–9, punto, guion bajo y guion.
display-name = Nombre visible
signup-country = País (dos letras, p. ej., ES)
signup-country-hint = Código ISO 3166-1, en mayúsculas.
signup-submit = Crear mi scanid
signup-available = «{ $name }» está disponible.
signup-taken = «{ $name }» ya está en uso. Elige otro nombre.
signup-check = Revisa los campos marcados.
signup-photo-failed = Se creó tu identidad, pero la foto no se guardó: { $reason }
photo = Foto (cámara o archivo)
photo-hint = JPEG, PNG o WebP, 1 MB como máximo. Opcional.
photo-too-large = Esta foto ocupa más de 1 MB; elige una más pequeña.
edit-title = Editar perfil
edit-save = Guardar
edit-saved = Perfil guardado.

home-title = Tu scanid
home-identity = Tu identidad
home-service-id = ID de servicio
home-how = Para iniciar sesión en algún sitio, escanea el código QR de su página de inicio de sesión con la cámara del teléfono. El enlace se abre aquí.
home-manage = Gestionar
home-activity = Inicios de sesión recientes
home-keys = Claves y llaves de acceso
home-agents = Agentes que actúan por ti
home-rotate = Sustituir la clave del dispositivo
home-sign-out = Cerrar sesión en todas partes
home-delete = Eliminar identidad

keys-upgrade = Usar una llave de acceso en este teléfono
keys-add = Añadir una llave de acceso
keys-upgrade-why = Con una llave de acceso, cada aprobación pide tu huella, tu cara o tu PIN: quien tenga tu teléfono desbloqueado no puede aprobar por ti. Tu clave actual traspasa todo a la llave de acceso y después se retira.
keys-last-used = Último uso: { $when }
keys-last-used-from = Último uso: { $when }, desde { $place }
keys-not-used = Aún sin usar
keys-removed = Se quitó la clave.
keys-remove = Quitar
keys-remove-confirm = Sí, quitarla
keys-remove-sign-out = Se perdió o pudo copiarse: cerrar también la sesión en todas partes
keys-last-key = Es tu última clave: añade otra antes de quitarla.
keys-this-phone = (este teléfono)
keys-passkey = Llave de acceso
passkey-name = Este teléfono
keys-passkey-level = Añadida con la clave del dispositivo: sus inicios de sesión cuentan como los de la clave del dispositivo (sin nivel de huella, cara o PIN).
keys-device-key = Clave del dispositivo
keys-device-key-note = Firma sin pedir que desbloquees

rotate-text = Se crea una clave nueva en este teléfono. La clave antigua le traspasa todo y deja de funcionar al instante.
rotate-also = Cerrar también la sesión en todas partes
rotate-also-hint = Termina cada inicio de sesión hecho con scanid: cada aplicación y sitio te pedirá que vuelvas a iniciar sesión. Elige esta opción si otra persona pudo tener tu teléfono.
rotate-confirm = Sustituir la clave
rotate-done = Ya hay una clave de dispositivo nueva; la antigua ya no funciona.
rotate-done-everywhere = Ya hay una clave de dispositivo nueva; la antigua ya no funciona y se cerró tu sesión en todas partes.
sign-out-text = Termina cada inicio de sesión hecho con scanid, en todos los dispositivos: cada aplicación y sitio recibe el aviso y te pide que vuelvas a iniciar sesión. Tus claves siguen igual.
sign-out-lost = ¿Se perdió un teléfono o una llave de acceso, o pudo copiarse? Quítalo en «Claves y llaves de acceso» (que también ofrece esto) y luego cierra la sesión en todas partes.
signed-out = { $count ->
    [one] Se cerró tu sesión en todas partes: terminó { $count } sesión, y cada aplicación y sitio te pedirá que vuelvas a iniciar sesión.
   *[other] Se cerró tu sesión en todas partes: terminaron { $count } sesiones, y cada aplicación y sitio te pedirá que vuelvas a iniciar sesión.
}
delete-text = Esto elimina tu identidad scanid en el servicio: tu perfil y tu foto, tus inicios de sesión en todas partes y la clave de este teléfono. Tu nombre queda libre para otras personas. No se puede deshacer.
delete-label = Escribe tu nombre ({ $name }) para confirmar
delete-mismatch = Escribe tu nombre, { $name }, para confirmar.
delete-confirm = Eliminar mi identidad
delete-done = Se eliminó tu identidad. Puedes crear una nueva.

activity-none = Aún no hay inicios de sesión.
activity-approved = aprobado
activity-denied = rechazado
activity-refused = bloqueado (la aplicación no lo permite)
activity-wrong-number = cancelado (se eligió un número incorrecto)
activity-second-device = cancelado (lo escaneó un segundo teléfono)
activity-sso = ya habías iniciado sesión: sin escanear
activity-from = desde { $place } · { $browser }
activity-unknown-browser = navegador desconocido
activity-reported = Informado como «no fui yo».
activity-not-me = No fui yo
activity-ask = ¿Cerrar este inicio de sesión en { $client }? Su acceso se revoca al instante y se avisa a { $client }.
activity-yes = Sí, cerrarlo
activity-done-session = Hecho: se cerró ese inicio de sesión en { $client } y se revocó su acceso.
activity-done-tokens = Hecho: se revocó el acceso de ese inicio de sesión a { $client } (su sesión ya había terminado).
activity-done-nothing = Informado. No quedaba ninguna sesión ni acceso de ese inicio de sesión por cerrar.

place-unknown = dirección desconocida
place-network = red { $network }
where-started-from = Iniciado desde
where-this-phone = Este teléfono
where-asked-at = Solicitado el
where-warning = Atención:
flag-location-mismatch = Se inició en un país distinto de aquel en el que está este teléfono.
flag-first-from-here = Nunca has aprobado un inicio de sesión desde ese lugar.
flag-high-usage = En la última hora se pidieron muchos inicios de sesión para tu identidad.
where-refused = { $client } no permite un inicio de sesión con estos avisos: no se puede aprobar.
where-deny-it = Recházalo.

scan-reading = Leyendo el código…
scan-expired = Este código caducó
scan-gone = El inicio de sesión ya no está esperando, o el código era antiguo. Vuelve a escanear el código de la página de inicio de sesión.
scan-new = { $client } te pide que inicies sesión con scanid. Aún no tienes scanid en este teléfono: crea uno y después aprueba.
code-not-waiting = Este código no está esperando
code-invalid = El código no es válido, caducó o ya se usó. Vuelve a empezar en el dispositivo.

scope-openid = Tus identificadores de scanid (sujeto e ID de servicio)
scope-profile = Tu nombre de usuario, tu nombre visible, tu foto de perfil, cuándo cambió tu perfil por última vez y los grupos a los que perteneces
scope-groups = Los grupos a los que perteneces
scope-address = Tu país
scope-offline-access = Acceso mientras no usas la aplicación (acceso sin conexión)
login-title = ¿Iniciar sesión en { $client }?
connect-title = ¿Conectar { $client }?
asks-for = { $client } pide:
asks-for-at = { $client } en { $host } pide:
an-app = una aplicación
resources = y acceso, en tu nombre, a:
self-registered = { $client } se registró por su cuenta en este servicio: nadie ha comprobado ese nombre.
approve-as = Como { $user } · hasta las { $time }
agent = { $browser } en { $os }
started-here = Iniciado en este teléfono.
started-elsewhere = Este inicio de sesión se inició en otro dispositivo.
address = Dirección
browser = Navegador
approve-only-if = Aprueba solo si iniciaste este inicio de sesión tú, ahora mismo, en una pantalla que tienes delante. Si alguien te envió este código, recházalo.
device-check = Comprueba que el dispositivo muestra este código:
device-address = La dirección del dispositivo
device-calls-itself = El dispositivo dice ser (su propia afirmación, sin comprobar)
device-notice = Un código de dispositivo es una solicitud de un dispositivo. Aprueba solo si tienes ese dispositivo en la mano (o delante) y muestra este código. Nadie necesita que apruebes un código que te envió, te leyó o te pidió que escribieras: si así lo recibiste, recházalo.
device-differ = Si los códigos no coinciden, recházalo.
pick = Elige el número que aparece en la pantalla de inicio de sesión:
pick-passkey = Después, tu teléfono te pedirá la huella, la cara o el bloqueo de pantalla para aprobar.
number-here = Iniciado en este navegador: su página de inicio de sesión mostraba { $number }.
arming = Los botones responden un momento después de que aparece esta pantalla, para que un toque sin querer no apruebe nada.
approve = Aprobar
deny = Rechazar
approved-title = Inicio de sesión aprobado
denied-title = Inicio de sesión rechazado
cancelled-title = Inicio de sesión cancelado
approved-text = Estás iniciando sesión en { $client }. Continúa en la pantalla donde empezaste.
approved-device = { $client } está conectado. Continúa en el dispositivo.
denied-text = Se avisó a { $client } de que dijiste que no.
refused = { $client } no permite este inicio de sesión: { $reason }. Se canceló.
not-waiting = Este inicio de sesión ya no está esperando (caducó o ya se decidió). Vuelve a escanear el código.

# The agents acting for the person (token exchange)
agents-text = Aplicaciones a las que permitiste actuar por ti en otros sitios, sin superar el acceso que les diste. Retira una y deja de actuar por ti al instante.
agents-none = Ningún agente actúa por ti.
agents-since = Permitido { $when }
agents-scopes = Puede usar: { $scopes }
agents-resources = En: { $resources }
agents-withdraw = Retirar
agents-ask = ¿Impedir que { $client } actúe por ti? Su acceso en tu nombre termina al instante y su próximo inicio de sesión te lo volverá a preguntar.
agents-withdrawn = Retirado: { $client } ya no puede actuar por ti.

# Requests waiting for the person (OpenID CIBA)
waiting-title = Solicitudes que te esperan
waiting-none = Ninguna solicitud te espera.
waiting-open = Abrir
waiting-asked = Pedida a las { $time }
waiting-gone = Esta solicitud ya no está esperando (caducó o ya se decidió).
binding-message = Quien la pide debería mostrarte exactamente este mensaje:
binding-none = Esta solicitud no trae ningún mensaje para comparar.
binding-check = Aprueba solo si estás tratando ahora mismo con esta aplicación (en una llamada, en una caja, con tu agente) y lo que te muestra coincide. Si no esperabas esta solicitud, recházala.
approve-agent = { $client } es un agente: si lo permites, también podrá actuar por ti sin superar este acceso, y cada token que use indicará que actúa por ti. Puedes retirarlo en cualquier momento en la app de scanid.

# Notifications (Web Push): the home screen's card, and the notification itself
push-title = Notificaciones
push-text = Recibe una notificación en este teléfono cuando alguien te pida por el canal de respaldo: un centro de llamadas, una caja o un agente. Solo dice que hay una solicitud esperando.
push-is-on = Las notificaciones están activadas en este teléfono.
push-is-off = Las notificaciones están desactivadas: abre la app para ver las solicitudes pendientes.
push-turn-on = Activar notificaciones
push-turn-off = Desactivar notificaciones
push-now-on = Notificaciones activadas.
push-now-off = Notificaciones desactivadas.
push-blocked = Las notificaciones están bloqueadas para esta app. Permítelas en la configuración del sitio de tu navegador y vuelve a intentarlo.
push-notice-title = Hay una solicitud esperándote
push-notice-body = Abre scanid para ver quién lo pide y aprueba o rechaza.
