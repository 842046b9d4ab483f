//! Profile photos the service hosts: what an upload must be (JPEG, PNG or WebP by its magic
//! bytes, at most [`MAX_BYTES`], dimensions within [`MAX_SIDE`]), the name it is stored under
//! (its owner and its content hash) and the URL the profile carries.

use aws_lc_rs::digest::{digest, SHA256};

/// The largest photo accepted.
pub const MAX_BYTES: usize = 1024 * 1024;
/// The longest side accepted, in pixels.
pub const MAX_SIDE: u32 = 4096;

/// An image format the service hosts, told by the magic bytes (never by a name or a header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    Jpeg,
    Png,
    Webp,
}

impl Format {
    pub const fn content_type(self) -> &'static str {
        match self {
            Format::Jpeg => "image/jpeg",
            Format::Png => "image/png",
            Format::Webp => "image/webp",
        }
    }
}

/// Why a photo was refused (the text goes to the app).
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum PhotoError {
    #[error("photo: empty")]
    Empty,
    #[error("photo: at most 1 MB")]
    TooLarge,
    #[error("photo: JPEG, PNG or WebP")]
    Format,
    #[error("photo: the image's size cannot be read")]
    Unreadable,
    #[error("photo: at most 4096 pixels on each side")]
    Dimensions,
}

/// The format, by magic bytes.
pub fn sniff(b: &[u8]) -> Option<Format> {
    if b.starts_with(&[0xFF, 0xD8, 0xFF]) {
        Some(Format::Jpeg)
    } else if b.starts_with(b"\x89PNG\r\n\x1a\n") {
        Some(Format::Png)
    } else if b.len() >= 12 && &b[..4] == b"RIFF" && &b[8..12] == b"WEBP" {
        Some(Format::Webp)
    } else {
        None
    }
}

fn be16(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from(u16::from_be_bytes([*b.get(i)?, *b.get(i + 1)?])))
}

fn le16(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from(u16::from_le_bytes([*b.get(i)?, *b.get(i + 1)?])))
}

fn le24(b: &[u8], i: usize) -> Option<u32> {
    Some(u32::from_le_bytes([
        *b.get(i)?,
        *b.get(i + 1)?,
        *b.get(i + 2)?,
        0,
    ]))
}

/// Width and height from the image's own header.
pub fn dimensions(format: Format, b: &[u8]) -> Option<(u32, u32)> {
    match format {
        // IHDR is the first chunk: width and height, big-endian, at 16 and 20.
        Format::Png => {
            if b.get(12..16)? != b"IHDR" {
                return None;
            }
            let w = u32::from_be_bytes(b.get(16..20)?.try_into().ok()?);
            let h = u32::from_be_bytes(b.get(20..24)?.try_into().ok()?);
            Some((w, h))
        }
        // Walk the segments to the first start-of-frame (SOF0-SOF15 but DHT, JPG and DAC).
        Format::Jpeg => {
            let mut i = 2;
            loop {
                while *b.get(i)? == 0xFF && *b.get(i + 1)? == 0xFF {
                    i += 1;
                }
                if *b.get(i)? != 0xFF {
                    return None;
                }
                let marker = *b.get(i + 1)?;
                let len = be16(b, i + 2)? as usize;
                if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
                    let h = be16(b, i + 5)?;
                    let w = be16(b, i + 7)?;
                    return Some((w, h));
                }
                if len < 2 {
                    return None;
                }
                i += 2 + len;
            }
        }
        Format::Webp => match b.get(12..16)? {
            b"VP8 " => Some((le16(b, 26)? & 0x3FFF, le16(b, 28)? & 0x3FFF)),
            b"VP8L" => {
                let bits = u32::from_le_bytes(b.get(21..25)?.try_into().ok()?);
                Some(((bits & 0x3FFF) + 1, ((bits >> 14) & 0x3FFF) + 1))
            }
            b"VP8X" => Some((le24(b, 24)? + 1, le24(b, 27)? + 1)),
            _ => None,
        },
    }
}

/// Checks an upload; its format.
pub fn check(b: &[u8]) -> Result<Format, PhotoError> {
    if b.is_empty() {
        return Err(PhotoError::Empty);
    }
    if b.len() > MAX_BYTES {
        return Err(PhotoError::TooLarge);
    }
    let format = sniff(b).ok_or(PhotoError::Format)?;
    let (w, h) = dimensions(format, b).ok_or(PhotoError::Unreadable)?;
    if w == 0 || h == 0 || w > MAX_SIDE || h > MAX_SIDE {
        return Err(PhotoError::Dimensions);
    }
    Ok(format)
}

/// The SHA-256 of the bytes, lower-case hex.
pub fn content_hash(b: &[u8]) -> String {
    digest(&SHA256, b)
        .as_ref()
        .iter()
        .map(|x| format!("{x:02x}"))
        .collect()
}

/// Whether `s` is a content hash as [`content_hash`] writes it.
pub fn is_content_hash(s: &str) -> bool {
    s.len() == 64 && s.bytes().all(|b| matches!(b, b'0'..=b'9' | b'a'..=b'f'))
}

/// The stored photo's name: its owner's `sub` and its content hash.
pub fn object_name(sub: &str, hash: &str) -> String {
    format!("{sub}/{hash}")
}

/// Where the service serves a stored photo: `{public_url}/v1/photos/{sub}/{hash}`.
pub fn url(public_url: &str, sub: &str, hash: &str) -> String {
    format!(
        "{}/v1/photos/{sub}/{hash}",
        public_url.trim_end_matches('/')
    )
}

/// The object name of a photo URL this service hosts (see [`url`]); `None` for any other URL.
pub fn hosted_object(public_url: &str, photo_url: &str) -> Option<String> {
    let prefix = format!("{}/v1/photos/", public_url.trim_end_matches('/'));
    let rest = photo_url.strip_prefix(&prefix)?;
    let (sub, hash) = rest.split_once('/')?;
    (uuid::Uuid::parse_str(sub).is_ok() && sub.len() == 36 && is_content_hash(hash))
        .then(|| object_name(sub, hash))
}

/// The object name of identity `sub`'s own hosted photo at `photo_url`, judged by the path
/// alone (`/v1/photos/{sub}/{hash}`), so an operator command that does not know the public
/// URL still finds it. Only that identity's own objects are ever named.
pub fn own_object(sub: &str, photo_url: &str) -> Option<String> {
    let url = url::Url::parse(photo_url).ok()?;
    let rest = url.path().strip_prefix("/v1/photos/")?;
    let (owner, hash) = rest.split_once('/')?;
    (owner == sub && is_content_hash(hash)).then(|| object_name(sub, hash))
}

#[cfg(test)]
mod tests {
    use super::*;

    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"\x89PNG\r\n\x1a\n\0\0\0\rIHDR".to_vec();
        b.extend_from_slice(&w.to_be_bytes());
        b.extend_from_slice(&h.to_be_bytes());
        b.extend_from_slice(&[8, 2, 0, 0, 0]);
        b
    }

    fn jpeg(w: u16, h: u16) -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8, 0xFF, 0xE0, 0, 4, 0, 0];
        b.extend_from_slice(&[0xFF, 0xC0, 0, 11, 8]);
        b.extend_from_slice(&h.to_be_bytes());
        b.extend_from_slice(&w.to_be_bytes());
        b.extend_from_slice(&[1, 1, 0x11, 0]);
        b
    }

    fn webp_vp8x(w: u32, h: u32) -> Vec<u8> {
        let mut b = b"RIFF\0\0\0\0WEBPVP8X\x0a\0\0\0\0\0\0\0".to_vec();
        b.extend_from_slice(&(w - 1).to_le_bytes()[..3]);
        b.extend_from_slice(&(h - 1).to_le_bytes()[..3]);
        b
    }

    #[test]
    fn formats_by_magic_bytes_with_their_dimensions() {
        assert_eq!(check(&png(64, 48)), Ok(Format::Png));
        assert_eq!(dimensions(Format::Png, &png(64, 48)), Some((64, 48)));
        assert_eq!(check(&jpeg(640, 480)), Ok(Format::Jpeg));
        assert_eq!(dimensions(Format::Jpeg, &jpeg(640, 480)), Some((640, 480)));
        assert_eq!(check(&webp_vp8x(300, 200)), Ok(Format::Webp));
        assert_eq!(
            dimensions(Format::Webp, &webp_vp8x(300, 200)),
            Some((300, 200))
        );
    }

    #[test]
    fn refuses_what_is_not_a_bounded_photo() {
        assert_eq!(check(b""), Err(PhotoError::Empty));
        assert_eq!(check(b"<svg onload=alert(1)>"), Err(PhotoError::Format));
        assert_eq!(check(b"GIF89a...."), Err(PhotoError::Format));
        assert_eq!(check(&png(5000, 10)), Err(PhotoError::Dimensions));
        assert_eq!(check(&png(0, 10)), Err(PhotoError::Dimensions));
        assert_eq!(check(&jpeg(100, 9000)), Err(PhotoError::Dimensions));
        assert_eq!(check(&png(10, 10)[..18]), Err(PhotoError::Unreadable));
        assert_eq!(
            check(&[0xFF, 0xD8, 0xFF, 0x00]),
            Err(PhotoError::Unreadable)
        );
        let mut big = png(10, 10);
        big.resize(MAX_BYTES + 1, 0);
        assert_eq!(check(&big), Err(PhotoError::TooLarge));
    }

    #[test]
    fn hosted_urls_round_trip_and_nothing_else_is_hosted() {
        let sub = "7c1a4b9e-3f2d-4e8a-9b6c-1d2e3f4a5b6c";
        let hash = content_hash(b"x");
        assert!(is_content_hash(&hash));
        let u = url("https://id.example.com/", sub, &hash);
        assert_eq!(u, format!("https://id.example.com/v1/photos/{sub}/{hash}"));
        assert_eq!(
            hosted_object("https://id.example.com", &u),
            Some(object_name(sub, &hash))
        );
        assert_eq!(hosted_object("https://other.example", &u), None);
        assert_eq!(
            hosted_object(
                "https://id.example.com",
                &format!("https://id.example.com/v1/photos/{sub}/../x")
            ),
            None
        );
        assert_eq!(
            hosted_object("https://id.example.com", "https://cdn.example.com/p.png"),
            None
        );
        assert_eq!(own_object(sub, &u), Some(object_name(sub, &hash)));
        assert_eq!(
            own_object("7c1a4b9e-3f2d-4e8a-9b6c-000000000000", &u),
            None,
            "never another identity's"
        );
        assert_eq!(own_object(sub, "https://cdn.example.com/p.png"), None);
    }
}
