# Сторінки входу scanid українською. Ті самі повідомлення й змінні, що й у en.ftl.

## Кожна сторінка

brand = scanid
language-label = Мова
language-change = Змінити

## Сторінка входу (QR-код)

qr-title = Увійти
qr-heading = Увійти до { $client }
qr-device-client = { $client } (код { $code })
qr-scan = Відскануйте цей код застосунком scanid, щоб увійти.
qr-alt = QR-код. Він містить це посилання: { $link }
self-registered = { $client } зареєструвався в цьому сервісі сам: ніхто не перевіряв цю назву.
qr-on-phone = Ви на телефоні?
qr-open-app = Відкрити застосунок scanid
qr-waiting = Очікуємо на застосунок…
qr-passkey = Увійти за допомогою ключа доступу
qr-no-app = Ще немає застосунку? Відскануйте код камерою телефона: відкриється вебзастосунок scanid, де ви зареєструєтеся.
qr-web-app = Відкрити вебзастосунок scanid
qr-get-app = Або встановіть застосунок:
qr-pick = Виберіть { $number } у застосунку scanid
qr-scanned-pick = Відскановано. На телефоні виберіть число, показане тут.
qr-scanned = Відскановано. Підтвердьте на телефоні…
qr-gone = Цей запит на вхід більше не дійсний.
qr-expired = Термін дії цього QR-коду минув.
qr-restart = Почати знову
qr-wrong-number = Число, вибране на телефоні, не збігається з показаним тут. Цей вхід скасовано.
qr-second-device = Цей код відсканував другий телефон. Цей вхід скасовано: якщо це були не ви, можливо, хтось переслав ваш код входу.
qr-denied = Відхилено. Продовжуємо…
qr-approved = Підтверджено. Продовжуємо…
passkey-waiting = Очікуємо на ваш ключ доступу…
passkey-signed-in = Ви увійшли. Продовжуємо…
passkey-failed = Не вдалося увійти за допомогою ключа доступу: { $reason }. Спробуйте ще раз або відскануйте QR-код.
passkey-cancelled = скасовано

## Сторінка згоди

consent-title = Дозволити доступ
consent-heading = { $client } хоче отримати доступ до вашого облікового запису scanid
consent-logged-in-as = Ви увійшли як { $name } (@{ $user })
consent-will-receive = { $client } отримає:
consent-resources = і доступ від вашого імені до:
consent-deny = Відхилити
consent-allow = Дозволити
consent-sent-back = Вас буде повернуто на { $host }.
consent-agent = { $client } — агент: якщо ви дозволите, він також зможе діяти від вашого імені в межах цього доступу, і кожен токен, який він використовує, зазначатиме, що він діє від вашого імені. Ви можете будь-коли відкликати це в застосунку scanid.
scope-openid = Ваші ідентифікатори scanid (суб’єкт та ідентифікатор сервісу)
scope-profile = Ваше ім’я користувача, відображуване ім’я, фото профілю, час останньої зміни профілю і групи, до яких ви належите
scope-groups = Групи, до яких ви належите
scope-address = Ваша країна
scope-offline_access = Доступ, коли ви не користуєтеся застосунком (офлайн-доступ)
scope-other = Інші дані
claim-name = Ваше відображуване ім’я
claim-preferred_username = Ваше ім’я користувача
claim-picture = Ваше фото профілю
claim-updated_at = Час останньої зміни вашого профілю

## Сторінка коду пристрою (RFC 8628)

device-title = Під’єднати пристрій
device-enter = Введіть код, який показує ваш пристрій.
device-code = Код
device-continue = Продовжити
device-on-phone = Ви на телефоні зі своїм scanid?
device-approve-in-app = Підтвердити в застосунку scanid
device-then = Потім увійдіть за допомогою застосунку scanid. Вводьте лише код із пристрою, який ви самі зараз налаштовуєте.
device-not-from-page = Цей код надіслано не з цієї сторінки (його надіслав інший сайт, або сторінка була застаріла). Введіть тут код, який показує ваш пристрій.
device-unknown-code = Цей код недійсний, прострочений або вже використаний. Перевірте код на пристрої або почніть там знову.
device-connected = Пристрій під’єднано
device-connected-text = { $client } тепер під’єднано до вашого облікового запису scanid. Можете закрити це вікно й повернутися до пристрою.
device-refused = Пристрій не під’єднано
device-refused-text = Ви відхилили { $client }: пристрій не під’єднано. Можете закрити це вікно.

## Вхід (form_post) і вихід

signing-in-title = Вхід
signing-in = Виконуємо вхід…
continue = Продовжити
logout-title = Вийти
logout-heading = Вийти з scanid?
logout-button = Вийти
logged-out-title = Ви вийшли
logged-out-heading = Ви вийшли з облікового запису
logged-out-text = Можете закрити це вікно.

## Сторінки помилок

error-details = Подробиці:
error-request-invalid = Цей запит на вхід недійсний
error-request-invalid-text = Застосунок надіслав запит на вхід, який scanid не може прийняти. Поверніться до застосунку й спробуйте ще раз; якщо це повторюється, повідомте його розробників.
error-login-not-found = Запит на вхід не знайдено
error-login-not-found-text = Такого запиту на вхід немає, або його термін дії минув. Почніть знову із застосунку.
error-wrong-browser = Не той браузер
error-wrong-browser-text = Цей вхід можна завершити лише в браузері, у якому його почато.
error-expired = Термін дії запиту на вхід минув
error-expired-text = Термін дії цього запиту на вхід минув. Почніть знову із застосунку.
error-completed = Уже завершено
error-completed-text = Цей запит на вхід уже завершено. Почніть знову із застосунку.
error-not-approved = Ще не підтверджено
error-not-approved-text = Спершу відскануйте QR-код застосунком scanid і підтвердьте вхід.
error-unknown-app = Невідомий застосунок
error-unknown-app-text = Застосунку, який почав цей вхід, більше не існує.
error-refused = Запит відхилено
error-forged-text = Цю форму надіслано не зі сторінки згоди.
error-no-choice = Виберіть «Дозволити» або «Відхилити»
error-no-choice-text = Форма згоди була неповна.
error-logout-invalid = Недійсний запит на вихід
error-logout-repeated-text = Параметр повторюється.
error-logout-invalid-text = scanid не може виконати цей запит на вихід.
error-logout-refused-text = Цей вихід не підтверджено на сторінці виходу scanid.
error-failed = Щось пішло не так
error-failed-text = Спробуйте ще раз.
error-unavailable = Тимчасово недоступно
error-unavailable-text = scanid зараз не може завершити цей крок. Спробуйте ще раз за мить.
error-rate-limited = Забагато спроб входу
error-rate-limited-text = Зачекайте хвилину й спробуйте ще раз.
