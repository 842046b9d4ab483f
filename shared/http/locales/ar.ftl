# صفحات تسجيل الدخول في scanid بالعربية. الرسائل والمتغيرات نفسها كما في en.ftl.

## كل صفحة

brand = scanid
language-label = اللغة
language-change = تغيير

## صفحة تسجيل الدخول (رمز QR)

qr-title = تسجيل الدخول
qr-heading = تسجيل الدخول إلى { $client }
qr-device-client = { $client } (الرمز { $code })
qr-scan = امسح هذا الرمز بتطبيق scanid لتسجيل الدخول.
qr-alt = رمز QR. يحتوي على هذا الرابط: { $link }
self-registered = سجّل { $client } نفسه في هذه الخدمة: لم يتحقق أحد من هذا الاسم.
qr-on-phone = هل تستخدم هاتفك؟
qr-open-app = افتح تطبيق scanid
qr-waiting = في انتظار التطبيق…
qr-passkey = سجّل الدخول بمفتاح مرور
qr-no-app = ليس لديك التطبيق بعد؟ امسح الرمز بكاميرا هاتفك: سيفتح تطبيق scanid على الويب، وفيه تنشئ حسابك.
qr-web-app = افتح تطبيق scanid على الويب
qr-get-app = أو نزّل التطبيق:
qr-pick = اختر { $number } في تطبيق scanid
qr-scanned-pick = تم المسح. على هاتفك، اختر الرقم المعروض هنا.
qr-scanned = تم المسح. أكّد على هاتفك…
qr-gone = طلب تسجيل الدخول هذا لم يعد صالحًا.
qr-expired = انتهت صلاحية رمز QR هذا.
qr-restart = ابدأ من جديد
qr-wrong-number = الرقم الذي اختير على الهاتف لا يطابق الرقم المعروض هنا. أُلغي تسجيل الدخول هذا.
qr-second-device = مسح هاتف ثانٍ هذا الرمز. أُلغي تسجيل الدخول هذا: إن لم تكن أنت، فربما أعاد أحدهم توجيه رمز تسجيل دخولك.
qr-denied = تم الرفض. جارٍ المتابعة…
qr-approved = تمت الموافقة. جارٍ المتابعة…
passkey-waiting = في انتظار مفتاح المرور…
passkey-signed-in = تم تسجيل الدخول. جارٍ المتابعة…
passkey-failed = تعذّر تسجيل الدخول بمفتاح المرور: { $reason }. حاول مرة أخرى أو امسح رمز QR.
passkey-cancelled = أُلغي

## صفحة الموافقة

consent-title = السماح بالوصول
consent-heading = يطلب { $client } الوصول إلى حسابك في scanid
consent-logged-in-as = مسجّل الدخول باسم { $name } (@{ $user })
consent-will-receive = سيحصل { $client } على:
consent-resources = والوصول، باسمك، إلى:
consent-deny = رفض
consent-allow = سماح
consent-sent-back = ستعود إلى { $host }.
consent-agent = { $client } وكيل: إذا سمحت، فيمكنه أيضًا التصرف نيابةً عنك في حدود هذا الوصول فقط، وكل رمز يستخدمه يذكر أنه يتصرف نيابةً عنك. يمكنك سحب ذلك في أي وقت من تطبيق scanid.
scope-openid = معرّفاتك في scanid (المعرّف ومعرّف الخدمة)
scope-profile = اسم المستخدم والاسم المعروض وصورة الملف الشخصي وآخر وقت تغيّر فيه ملفك الشخصي والمجموعات التي تنتمي إليها
scope-groups = المجموعات التي تنتمي إليها
scope-address = بلدك
scope-offline_access = الوصول أثناء عدم استخدامك التطبيق (الوصول دون اتصال)
scope-other = بيانات أخرى
claim-name = اسمك المعروض
claim-preferred_username = اسم المستخدم
claim-picture = صورة ملفك الشخصي
claim-updated_at = آخر وقت تغيّر فيه ملفك الشخصي

## صفحة رمز الجهاز (RFC 8628)

device-title = ربط جهاز
device-enter = أدخل الرمز الذي يعرضه جهازك.
device-code = الرمز
device-continue = متابعة
device-on-phone = هل تستخدم الهاتف الذي عليه scanid؟
device-approve-in-app = وافق في تطبيق scanid
device-then = ثم سجّل الدخول بتطبيق scanid. لا تُدخل إلا رمزًا من جهاز تُعدّه بنفسك.
device-not-from-page = لم يُرسل هذا الرمز من هذه الصفحة (أرسله موقع آخر، أو كانت الصفحة قديمة جدًا). اكتب هنا الرمز الذي يعرضه جهازك.
device-unknown-code = هذا الرمز غير صالح أو منتهي الصلاحية أو مستخدم. تحقّق من الرمز على جهازك، أو ابدأ من جديد هناك.
device-connected = تم ربط الجهاز
device-connected-text = أصبح { $client } مربوطًا بحسابك في scanid. يمكنك إغلاق هذه النافذة والعودة إلى الجهاز.
device-refused = لم يُربط الجهاز
device-refused-text = رفضت { $client }: لم يُربط الجهاز. يمكنك إغلاق هذه النافذة.

## تسجيل الدخول (form_post) وتسجيل الخروج

signing-in-title = جارٍ تسجيل الدخول
signing-in = جارٍ تسجيل دخولك…
continue = متابعة
logout-title = تسجيل الخروج
logout-heading = هل تريد تسجيل الخروج من scanid؟
logout-button = تسجيل الخروج
logged-out-title = تم تسجيل الخروج
logged-out-heading = لقد سجّلت الخروج
logged-out-text = يمكنك إغلاق هذه النافذة.

## صفحات الأخطاء

error-details = التفاصيل:
error-request-invalid = طلب تسجيل الدخول هذا غير صالح
error-request-invalid-text = أرسل التطبيق طلب تسجيل دخول لا يستطيع scanid قبوله. عد إلى التطبيق وحاول مرة أخرى؛ وإن تكرر ذلك، فأخبر مطوّريه.
error-login-not-found = لم يُعثر على طلب تسجيل الدخول
error-login-not-found-text = طلب تسجيل الدخول هذا غير موجود أو انتهت صلاحيته. ابدأ من جديد من التطبيق.
error-wrong-browser = متصفح مختلف
error-wrong-browser-text = لا يمكن إكمال تسجيل الدخول هذا إلا في المتصفح الذي بدأه.
error-expired = انتهت صلاحية طلب تسجيل الدخول
error-expired-text = انتهت صلاحية طلب تسجيل الدخول هذا. ابدأ من جديد من التطبيق.
error-completed = اكتمل من قبل
error-completed-text = اكتمل طلب تسجيل الدخول هذا من قبل. ابدأ من جديد من التطبيق.
error-not-approved = لم تتم الموافقة بعد
error-not-approved-text = امسح رمز QR بتطبيق scanid ووافق على تسجيل الدخول أولًا.
error-unknown-app = تطبيق غير معروف
error-unknown-app-text = التطبيق الذي بدأ تسجيل الدخول هذا لم يعد موجودًا.
error-refused = رُفض الطلب
error-forged-text = لم يُرسل هذا النموذج من صفحة الموافقة.
error-no-choice = اختر السماح أو الرفض
error-no-choice-text = نموذج الموافقة غير مكتمل.
error-logout-invalid = طلب تسجيل خروج غير صالح
error-logout-repeated-text = إحدى المعلمات مكررة.
error-logout-invalid-text = لا يستطيع scanid تنفيذ طلب تسجيل الخروج هذا.
error-logout-refused-text = لم يُؤكَّد تسجيل الخروج هذا في صفحة تسجيل الخروج في scanid.
error-failed = حدث خطأ ما
error-failed-text = يُرجى المحاولة مرة أخرى.
error-unavailable = غير متاح مؤقتًا
error-unavailable-text = لا يستطيع scanid إكمال هذه الخطوة الآن. يُرجى المحاولة بعد قليل.
error-rate-limited = محاولات تسجيل دخول كثيرة جدًا
error-rate-limited-text = يُرجى الانتظار دقيقة ثم المحاولة مرة أخرى.
