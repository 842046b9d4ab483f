# scanid के लॉग-इन पेज हिन्दी में। en.ftl जैसे ही संदेश और प्लेसहोल्डर।

## हर पेज

brand = scanid
language-label = भाषा
language-change = बदलें

## लॉग-इन पेज (QR कोड)

qr-title = लॉग इन करें
qr-heading = { $client } में लॉग इन करें
qr-device-client = { $client } (कोड { $code })
qr-scan = लॉग इन करने के लिए यह कोड scanid ऐप से स्कैन करें।
qr-alt = QR कोड। इसमें यह लिंक है: { $link }
self-registered = { $client } ने इस सेवा में खुद को पंजीकृत किया है: इस नाम की किसी ने जाँच नहीं की है।
qr-on-phone = फ़ोन पर हैं?
qr-open-app = scanid ऐप खोलें
qr-waiting = ऐप का इंतज़ार है…
qr-passkey = पासकी से साइन इन करें
qr-no-app = अभी ऐप नहीं है? अपने फ़ोन के कैमरे से कोड स्कैन करें: इससे scanid वेब ऐप खुलेगा, जहाँ आप साइन अप करते हैं।
qr-web-app = scanid वेब ऐप खोलें
qr-get-app = या ऐप डाउनलोड करें:
qr-pick = scanid ऐप में { $number } चुनें
qr-scanned-pick = स्कैन हो गया। अपने फ़ोन पर वह संख्या चुनें जो यहाँ दिख रही है।
qr-scanned = स्कैन हो गया। अपने फ़ोन पर पुष्टि करें…
qr-gone = यह लॉग-इन अनुरोध अब मान्य नहीं है।
qr-expired = इस QR कोड की समय-सीमा समाप्त हो गई है।
qr-restart = फिर से शुरू करें
qr-wrong-number = फ़ोन पर चुनी गई संख्या यहाँ दिखाई गई संख्या से मेल नहीं खाती। यह लॉग इन रद्द कर दिया गया है।
qr-second-device = किसी दूसरे फ़ोन ने यह कोड स्कैन किया। यह लॉग इन रद्द कर दिया गया है: अगर वह आप नहीं थे, तो शायद किसी ने आपका लॉग-इन कोड आगे भेज दिया है।
qr-denied = अस्वीकार किया गया। आगे बढ़ रहे हैं…
qr-approved = स्वीकृत। आगे बढ़ रहे हैं…
passkey-waiting = आपकी पासकी का इंतज़ार है…
passkey-signed-in = साइन इन हो गया। आगे बढ़ रहे हैं…
passkey-failed = पासकी से साइन इन नहीं हो सका: { $reason }। फिर से कोशिश करें, या QR कोड स्कैन करें।
passkey-cancelled = रद्द किया गया

## सहमति पेज

consent-title = पहुँच की अनुमति दें
consent-heading = { $client } आपके scanid खाते तक पहुँच चाहता है
consent-logged-in-as = { $name } (@{ $user }) के रूप में लॉग इन
consent-will-receive = { $client } को मिलेगा:
consent-resources = और आपकी ओर से इन तक पहुँच:
consent-deny = अस्वीकार करें
consent-allow = अनुमति दें
consent-sent-back = आपको { $host } पर वापस भेजा जाएगा।
consent-agent = { $client } एक एजेंट है: अनुमति देने पर यह इसी पहुँच की सीमा में आपकी ओर से काम भी कर सकेगा, और इसके हर टोकन में लिखा होगा कि यह आपकी ओर से काम कर रहा है। आप scanid ऐप में इसे कभी भी वापस ले सकते हैं।
scope-openid = आपके scanid पहचानकर्ता (सब्जेक्ट और सेवा ID)
scope-profile = आपका उपयोगकर्ता नाम, प्रदर्शित नाम, प्रोफ़ाइल फ़ोटो, आपकी प्रोफ़ाइल पिछली बार कब बदली गई, और वे समूह जिनके आप सदस्य हैं
scope-groups = वे समूह जिनके आप सदस्य हैं
scope-address = आपका देश
scope-offline_access = जब आप ऐप का उपयोग नहीं कर रहे हों तब की पहुँच (ऑफ़लाइन पहुँच)
scope-other = अन्य डेटा
claim-name = आपका प्रदर्शित नाम
claim-preferred_username = आपका उपयोगकर्ता नाम
claim-picture = आपकी प्रोफ़ाइल फ़ोटो
claim-updated_at = आपकी प्रोफ़ाइल पिछली बार कब बदली गई

## डिवाइस कोड पेज (RFC 8628)

device-title = डिवाइस कनेक्ट करें
device-enter = वह कोड दर्ज करें जो आपका डिवाइस दिखा रहा है।
device-code = कोड
device-continue = जारी रखें
device-on-phone = अपने scanid वाले फ़ोन पर हैं?
device-approve-in-app = scanid ऐप में स्वीकृत करें
device-then = फिर scanid ऐप से लॉग इन करें। केवल वही कोड दर्ज करें जो आपको उस डिवाइस से मिला हो जिसे आप खुद सेट अप कर रहे हैं।
device-not-from-page = यह कोड इस पेज से नहीं भेजा गया (किसी दूसरी साइट ने भेजा, या पेज बहुत पुराना था)। आपका डिवाइस जो कोड दिखा रहा है, उसे यहाँ टाइप करें।
device-unknown-code = यह कोड मान्य नहीं है, इसकी समय-सीमा समाप्त हो गई है या इसका उपयोग हो चुका है। अपने डिवाइस पर कोड जाँचें, या वहाँ फिर से शुरू करें।
device-connected = डिवाइस कनेक्ट हो गया
device-connected-text = { $client } अब आपके scanid खाते से कनेक्ट है। आप यह विंडो बंद करके डिवाइस पर वापस जा सकते हैं।
device-refused = डिवाइस कनेक्ट नहीं हुआ
device-refused-text = आपने { $client } को अस्वीकार किया: डिवाइस कनेक्ट नहीं हुआ। आप यह विंडो बंद कर सकते हैं।

## साइन इन (form_post) और लॉग आउट

signing-in-title = साइन इन हो रहा है
signing-in = आपको साइन इन किया जा रहा है…
continue = जारी रखें
logout-title = लॉग आउट करें
logout-heading = scanid से लॉग आउट करें?
logout-button = लॉग आउट करें
logged-out-title = लॉग आउट हो गया
logged-out-heading = आप लॉग आउट हो गए हैं
logged-out-text = आप यह विंडो बंद कर सकते हैं।

## त्रुटि पेज

error-details = विवरण:
error-request-invalid = यह लॉग-इन अनुरोध मान्य नहीं है
error-request-invalid-text = ऐप्लिकेशन ने ऐसा लॉग-इन अनुरोध भेजा जिसे scanid स्वीकार नहीं कर सकता। ऐप्लिकेशन पर वापस जाकर फिर से कोशिश करें; अगर ऐसा होता रहे, तो उसके निर्माताओं को बताएँ।
error-login-not-found = लॉग-इन अनुरोध नहीं मिला
error-login-not-found-text = यह लॉग-इन अनुरोध मौजूद नहीं है या इसकी समय-सीमा समाप्त हो गई है। ऐप्लिकेशन से फिर से शुरू करें।
error-wrong-browser = गलत ब्राउज़र
error-wrong-browser-text = यह लॉग इन केवल उसी ब्राउज़र में पूरा हो सकता है जिसमें यह शुरू हुआ था।
error-expired = लॉग-इन अनुरोध की समय-सीमा समाप्त
error-expired-text = इस लॉग-इन अनुरोध की समय-सीमा समाप्त हो गई है। ऐप्लिकेशन से फिर से शुरू करें।
error-completed = पहले ही पूरा हो चुका है
error-completed-text = यह लॉग-इन अनुरोध पहले ही पूरा हो चुका है। ऐप्लिकेशन से फिर से शुरू करें।
error-not-approved = अभी स्वीकृत नहीं
error-not-approved-text = पहले scanid ऐप से QR कोड स्कैन करें और लॉग इन को स्वीकृत करें।
error-unknown-app = अज्ञात ऐप्लिकेशन
error-unknown-app-text = जिस ऐप्लिकेशन ने यह लॉग इन शुरू किया था, वह अब मौजूद नहीं है।
error-refused = अनुरोध अस्वीकार किया गया
error-forged-text = यह फ़ॉर्म सहमति पेज से नहीं भेजा गया था।
error-no-choice = अनुमति दें या अस्वीकार करें चुनें
error-no-choice-text = सहमति फ़ॉर्म अधूरा था।
error-logout-invalid = अमान्य लॉग-आउट अनुरोध
error-logout-repeated-text = एक पैरामीटर दोहराया गया है।
error-logout-invalid-text = scanid इस लॉग-आउट अनुरोध पर कार्रवाई नहीं कर सकता।
error-logout-refused-text = इस लॉग आउट की पुष्टि scanid के लॉग-आउट पेज पर नहीं की गई।
error-failed = कुछ गड़बड़ हो गई
error-failed-text = कृपया फिर से कोशिश करें।
error-unavailable = अस्थायी रूप से अनुपलब्ध
error-unavailable-text = scanid अभी यह चरण पूरा नहीं कर सकता। कृपया थोड़ी देर में फिर से कोशिश करें।
error-rate-limited = लॉग इन की बहुत अधिक कोशिशें
error-rate-limited-text = कृपया एक मिनट रुककर फिर से कोशिश करें।
