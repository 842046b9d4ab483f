//! Files served as they are built in: the web app's (`static/app/`) and the admin console's
//! (`static/admin/`), each a name, a content type and its text.

/// One built-in file, by the name it is served under.
pub(crate) struct Asset {
    pub(crate) name: &'static str,
    pub(crate) content_type: &'static str,
    pub(crate) body: &'static str,
}

/// The JavaScript module `static/{dir}/{name}` as an [`Asset`] named `name`.
macro_rules! js_module {
    ($dir:literal, $name:literal) => {
        $crate::handlers::assets::Asset {
            name: $name,
            content_type: "text/javascript; charset=utf-8",
            body: include_str!(concat!("../../static/", $dir, "/", $name)),
        }
    };
}
pub(crate) use js_module;
