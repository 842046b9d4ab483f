//! Profile photos the service hosts: what an upload must be (JPEG, PNG or WebP by its magic
//! bytes, at most [`MAX_BYTES`], dimensions within [`MAX_SIDE`]), the name it is stored under
//! (its owner and its content hash) and the URL the profile carries.

use aws_lc_rs::digest::{digest, SHA256};

/// The largest photo accepted.
pub const MAX_BYTES: usize = 1024 * 1024;
/// The longest side accepted, in pixels.
pub const MAX_SIDE: u32 = 4096;
/// How a hosted photo is cached: five minutes, no `immutable`. A photo's bytes never change
/// under its name, but it stops being served when it is replaced, its owner disabled or
/// deleted; a year-long public cache would keep showing it that long (issue 25.2), five
/// minutes bounds how long a deletion takes to reach every cache.
pub const CACHE_CONTROL: &str = "public, max-age=300";

/// An image format the service hosts, told by the magic bytes (never by a name or a header).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Format {
    /// JPEG.
    Jpeg,
    /// PNG.
    Png,
    /// WebP.
    Webp,
}

impl Format {
    /// The format's media type.
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
    /// No bytes.
    #[error("photo: empty")]
    Empty,
    /// Over 1 MB.
    #[error("photo: at most 1 MB")]
    TooLarge,
    /// Not JPEG, PNG or WebP.
    #[error("photo: JPEG, PNG or WebP")]
    Format,
    /// The image's size cannot be read.
    #[error("photo: the image's size cannot be read")]
    Unreadable,
    /// Over 4096 pixels on a side.
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

fn be16(b: &[u8], i: usize) -> Option<usize> {
    Some(usize::from(u16::from_be_bytes([
        *b.get(i)?,
        *b.get(i + 1)?,
    ])))
}

/// Width and height from the image's own header, read as the decoders that display it read
/// them; `None` when they would not decode it.
///
/// PNG and WebP are read by the image-rs decoders (`png`, `image-webp`): the crates that
/// decode them, stricter than a header prober (IHDR's CRC, the chunks before the image data,
/// VP8's start code, a VP8X that holds no image), which the tests below require.
///
/// JPEG is walked here as libjpeg (every browser's JPEG decoder) walks it, because the crates
/// at hand do not (issue 23, measured on this module's test files): `imagesize` 0.15 reads a
/// length after every marker, so a standalone marker (TEM `FF 01`, RST*n* `FF D0`–`FF D7`: no
/// length) hides the real frame header and it measures the 20000 × 20000 bomb as its 16 × 16
/// decoy; it also refuses fill bytes and standalone markers that libjpeg skips, and accepts
/// what libjpeg stops on (a reserved marker, SOS before the frame, a short frame header).
/// `zune-jpeg` 0.5 parses the tables too and refuses valid files (a DAC segment, lossless and
/// arithmetic frames). Using either as a second opinion would refuse photos browsers show, so
/// the walk alone decides (issue 25.3).
pub fn dimensions(format: Format, b: &[u8]) -> Option<(u32, u32)> {
    match format {
        Format::Png => png_dimensions(b),
        Format::Jpeg => jpeg_dimensions(b),
        Format::Webp => {
            let d = image_webp::WebPDecoder::new(std::io::Cursor::new(b)).ok()?;
            Some(d.dimensions())
        }
    }
}

/// The PNG's size from IHDR, which must be the first chunk, whole, with its CRC; then the
/// chunks up to the image data must read too (as `png` reads them before decoding).
fn png_dimensions(b: &[u8]) -> Option<(u32, u32)> {
    let mut d = png::Decoder::new(std::io::Cursor::new(b));
    // Text and colour profiles are not needed to measure, and would be inflated.
    d.set_ignore_text_chunk(true);
    d.set_ignore_iccp_chunk(true);
    let info = d.read_header_info().ok()?;
    let (w, h) = (info.width, info.height);
    if w > MAX_SIDE || h > MAX_SIDE {
        // Too large: said so without reading on (nor sizing buffers for it).
        return Some((w, h));
    }
    d.read_info().ok()?;
    Some((w, h))
}

/// The JPEG's size from its frame header, found as libjpeg's `read_markers` finds it: after
/// SOI, each marker is `FF`, any number of fill bytes `FF`, then its code; TEM and RST0–7
/// stand alone; DHT, DAC, DQT, DNL, DRI, APP0–15 and COM carry a length and are skipped; the
/// first SOF*n* is the frame header. Where libjpeg stops with an error (SOI again, EOI or SOS
/// before a frame, a reserved or unknown marker, a frame header of the wrong length), or
/// would warn and skip bytes that are no marker, the photo is refused.
fn jpeg_dimensions(b: &[u8]) -> Option<(u32, u32)> {
    if b.get(..2)? != [0xFF, 0xD8] {
        return None;
    }
    let mut i = 2;
    loop {
        if *b.get(i)? != 0xFF {
            return None;
        }
        while *b.get(i + 1)? == 0xFF {
            i += 1;
        }
        let code = *b.get(i + 1)?;
        i += 2;
        match code {
            0x01 | 0xD0..=0xD7 => {}
            0xC0..=0xC3 | 0xC5..=0xC7 | 0xC9..=0xCB | 0xCD..=0xCF => {
                let len = be16(b, i)?;
                let components = usize::from(*b.get(i + 7)?);
                if len != 8 + 3 * components || b.len() < i + len {
                    return None;
                }
                let h = be16(b, i + 3)?;
                let w = be16(b, i + 5)?;
                return Some((u32::try_from(w).ok()?, u32::try_from(h).ok()?));
            }
            0xC4 | 0xCC | 0xDB | 0xDC | 0xDD | 0xE0..=0xEF | 0xFE => {
                let len = be16(b, i)?;
                if len < 2 {
                    return None;
                }
                i += len;
            }
            _ => return None,
        }
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

/// The object name of a photo URL this service hosts (see [`url()`]); `None` for any other URL.
pub fn hosted_object(public_url: &str, photo_url: &str) -> Option<String> {
    let prefix = format!("{}/v1/photos/", public_url.trim_end_matches('/'));
    let rest = photo_url.strip_prefix(&prefix)?;
    let (sub, hash) = rest.split_once('/')?;
    (crate::protocol::Subject::parse_identity(sub).is_ok() && is_content_hash(hash))
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

    /// A complete PNG of `w` × `h` (grey), as an encoder writes it.
    fn png(w: u32, h: u32) -> Vec<u8> {
        let mut out = Vec::new();
        let mut e = png::Encoder::new(&mut out, w, h);
        e.set_color(png::ColorType::Grayscale);
        let mut wr = e.write_header().unwrap();
        wr.write_image_data(&vec![0; (w * h) as usize]).unwrap();
        wr.finish().unwrap();
        out
    }

    /// CRC-32 (ISO-HDLC), as PNG chunks carry it.
    fn crc32(bytes: &[u8]) -> u32 {
        let mut c = 0xFFFF_FFFFu32;
        for b in bytes {
            c ^= u32::from(*b);
            for _ in 0..8 {
                c = if c & 1 == 1 {
                    (c >> 1) ^ 0xEDB8_8320
                } else {
                    c >> 1
                };
            }
        }
        !c
    }

    /// A PNG chunk of `kind` holding `data`, with its CRC.
    fn chunk(kind: &[u8; 4], data: &[u8]) -> Vec<u8> {
        let mut c = u32::try_from(data.len()).unwrap().to_be_bytes().to_vec();
        c.extend_from_slice(kind);
        c.extend_from_slice(data);
        let crc = crc32(&c[4..]);
        c.extend_from_slice(&crc.to_be_bytes());
        c
    }

    /// A frame header SOF`n` (`FF C0 + n`) of `w` × `h`, three components.
    fn sof(n: u8, w: u16, h: u16) -> Vec<u8> {
        let mut s = vec![0xFF, 0xC0 + n, 0, 17, 8];
        s.extend_from_slice(&h.to_be_bytes());
        s.extend_from_slice(&w.to_be_bytes());
        s.extend_from_slice(&[3, 1, 0x22, 0, 2, 0x11, 1, 3, 0x11, 1]);
        s
    }

    /// A segment with a length: marker `FF code`, then `payload`.
    fn seg(code: u8, payload: &[u8]) -> Vec<u8> {
        let mut s = vec![0xFF, code];
        s.extend_from_slice(&u16::try_from(payload.len() + 2).unwrap().to_be_bytes());
        s.extend_from_slice(payload);
        s
    }

    /// SOI, `parts`, then a scan's start and EOI (the walk stops at the frame header).
    fn jpeg_of(parts: &[&[u8]]) -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8];
        for p in parts {
            b.extend_from_slice(p);
        }
        b.extend_from_slice(&seg(0xDA, &[1, 1, 0, 0, 63, 0]));
        b.extend_from_slice(&[0x12, 0x34, 0xFF, 0xD9]);
        b
    }

    /// A baseline JPEG's headers: JFIF APP0, DQT, SOF0 of `w` × `h`, DHT.
    fn jpeg(w: u16, h: u16) -> Vec<u8> {
        jpeg_of(&[
            &seg(0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"),
            &seg(0xDB, &[0; 65]),
            &sof(0, w, h),
            &seg(0xC4, &[0; 29]),
        ])
    }

    /// A RIFF WebP holding `chunks` (each `(fourcc, payload)`).
    fn webp(chunks: &[(&[u8; 4], Vec<u8>)]) -> Vec<u8> {
        let mut body = b"WEBP".to_vec();
        for (kind, data) in chunks {
            body.extend_from_slice(*kind);
            body.extend_from_slice(&u32::try_from(data.len()).unwrap().to_le_bytes());
            body.extend_from_slice(data);
            if data.len() % 2 == 1 {
                body.push(0);
            }
        }
        let mut b = b"RIFF".to_vec();
        b.extend_from_slice(&u32::try_from(body.len()).unwrap().to_le_bytes());
        b.extend_from_slice(&body);
        b
    }

    /// A lossless (VP8L) bitstream header of `w` × `h`, version `version`.
    fn vp8l(w: u32, h: u32, version: u32) -> Vec<u8> {
        let bits = (w - 1) | ((h - 1) << 14) | (version << 29);
        let mut d = vec![0x2F];
        d.extend_from_slice(&bits.to_le_bytes());
        d.extend_from_slice(&[0; 8]);
        d
    }

    /// A lossy (VP8) key frame header: `w` and `h` as written (14 bits of size, 2 of scale),
    /// start code `start`.
    fn vp8(w: u16, h: u16, start: [u8; 3]) -> Vec<u8> {
        let mut d = vec![0x50, 0x01, 0x00];
        d.extend_from_slice(&start);
        d.extend_from_slice(&w.to_le_bytes());
        d.extend_from_slice(&h.to_le_bytes());
        d.extend_from_slice(&[0; 10]);
        d
    }

    /// The extended header (VP8X) of a `w` × `h` canvas, flags `flags`.
    fn vp8x(w: u32, h: u32, flags: u8) -> Vec<u8> {
        let mut d = vec![flags, 0, 0, 0];
        d.extend_from_slice(&(w - 1).to_le_bytes()[..3]);
        d.extend_from_slice(&(h - 1).to_le_bytes()[..3]);
        d
    }

    const VP8_START: [u8; 3] = [0x9D, 0x01, 0x2A];

    /// Issue 25.3: 65 KB whose SOF0 says 20000 × 20000 behind a standalone marker `FF
    /// standalone`, and a decoy SOF0 of 16 × 16 where a reader that takes a length after every
    /// marker lands (inside a comment, for libjpeg).
    fn bomb(standalone: u8) -> Vec<u8> {
        let mut b = vec![0xFF, 0xD8];
        b.extend_from_slice(&seg(0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"));
        let tem = b.len();
        b.extend_from_slice(&[0xFF, standalone]);
        b.extend_from_slice(&sof(0, 20000, 20000));
        let decoy_at = tem + 2 + 0xFFC0;
        let com = b.len();
        let com_len = decoy_at + 19 + 16 - (com + 2);
        b.extend_from_slice(&[0xFF, 0xFE]);
        b.extend_from_slice(&u16::try_from(com_len).unwrap().to_be_bytes());
        b.resize(decoy_at, b'x');
        b.extend_from_slice(&sof(0, 16, 16));
        b.resize(com + 2 + com_len, b'x');
        b.extend_from_slice(&[0xFF, 0xD9]);
        b
    }

    /// The walk the service did before (a length after every marker), kept to show what the
    /// bomb hid from it.
    fn naive_jpeg(b: &[u8]) -> Option<(usize, usize)> {
        let mut i = 2;
        loop {
            while *b.get(i)? == 0xFF && *b.get(i + 1)? == 0xFF {
                i += 1;
            }
            let marker = *b.get(i + 1)?;
            let len = be16(b, i + 2)?;
            if (0xC0..=0xCF).contains(&marker) && !matches!(marker, 0xC4 | 0xC8 | 0xCC) {
                return Some((be16(b, i + 7)?, be16(b, i + 5)?));
            }
            i += 2 + len;
        }
    }

    #[test]
    fn formats_by_magic_bytes_with_their_dimensions() {
        assert_eq!(check(&png(64, 48)), Ok(Format::Png));
        assert_eq!(dimensions(Format::Png, &png(64, 48)), Some((64, 48)));
        assert_eq!(check(&jpeg(640, 480)), Ok(Format::Jpeg));
        assert_eq!(dimensions(Format::Jpeg, &jpeg(640, 480)), Some((640, 480)));
        let lossless = webp(&[(b"VP8L", vp8l(300, 200, 0))]);
        assert_eq!(check(&lossless), Ok(Format::Webp));
        assert_eq!(dimensions(Format::Webp, &lossless), Some((300, 200)));
        let lossy = webp(&[(b"VP8 ", vp8(320, 240, VP8_START))]);
        assert_eq!(dimensions(Format::Webp, &lossy), Some((320, 240)));
        let extended = webp(&[(b"VP8X", vp8x(300, 200, 0)), (b"VP8L", vp8l(300, 200, 0))]);
        assert_eq!(dimensions(Format::Webp, &extended), Some((300, 200)));
        assert_eq!(check(&png(4096, 1)), Ok(Format::Png), "the largest side");
    }

    #[test]
    fn refuses_what_is_not_a_bounded_photo() {
        assert_eq!(check(b""), Err(PhotoError::Empty));
        assert_eq!(check(b"<svg onload=alert(1)>"), Err(PhotoError::Format));
        assert_eq!(check(b"GIF89a...."), Err(PhotoError::Format));
        assert_eq!(check(&png(5000, 10)), Err(PhotoError::Dimensions));
        assert_eq!(check(&png(4097, 1)), Err(PhotoError::Dimensions));
        assert_eq!(check(&jpeg(100, 9000)), Err(PhotoError::Dimensions));
        assert_eq!(check(&jpeg(0, 10)), Err(PhotoError::Dimensions));
        assert_eq!(
            check(&webp(&[
                (b"VP8X", vp8x(5000, 10, 0)),
                (b"VP8L", vp8l(10, 10, 0))
            ])),
            Err(PhotoError::Dimensions)
        );
        assert_eq!(
            check(&[0xFF, 0xD8, 0xFF, 0x00]),
            Err(PhotoError::Unreadable)
        );
        let mut big = png(10, 10);
        big.resize(MAX_BYTES + 1, 0);
        assert_eq!(check(&big), Err(PhotoError::TooLarge));
    }

    /// Issue 25.3: the bomb is measured as libjpeg measures it, and refused.
    #[test]
    fn a_frame_header_behind_a_standalone_marker_is_the_one_measured() {
        for standalone in [0x01, 0xD0, 0xD7] {
            let b = bomb(standalone);
            assert!(b.len() < 70_000);
            assert_eq!(naive_jpeg(&b), Some((16, 16)), "what was measured before");
            assert_eq!(dimensions(Format::Jpeg, &b), Some((20000, 20000)));
            assert_eq!(check(&b), Err(PhotoError::Dimensions));
        }
        // Standalone markers before a small frame are skipped, not refused.
        let ok = jpeg_of(&[&[0xFF, 0x01, 0xFF, 0xD3], &sof(0, 64, 32)]);
        assert_eq!(dimensions(Format::Jpeg, &ok), Some((64, 32)));
    }

    #[test]
    fn jpeg_markers_are_walked_as_libjpeg_walks_them() {
        let m = |parts: &[&[u8]]| dimensions(Format::Jpeg, &jpeg_of(parts));
        // Every frame header type is measured: baseline, extended, progressive, lossless,
        // hierarchical, arithmetic.
        for n in [0, 1, 2, 3, 5, 6, 7, 9, 10, 11, 13, 14, 15] {
            assert_eq!(m(&[&sof(n, 33, 44)]), Some((33, 44)), "SOF{n}");
        }
        // Fill bytes before a marker; APPn, COM, DQT, DHT, DRI and DAC skipped by length.
        assert_eq!(m(&[&[0xFF, 0xFF, 0xFF], &sof(0, 7, 9)]), Some((7, 9)));
        let exif_thumbnail = jpeg(9000, 9000);
        assert_eq!(
            m(&[
                &seg(0xE1, &[b"Exif\0\0".as_slice(), &exif_thumbnail].concat()),
                &seg(0xED, b"Photoshop 3.0\0"),
                &seg(0xFE, &sof(0, 9999, 9999)),
                &seg(0xDB, &[0; 65]),
                &seg(0xC4, &[0; 29]),
                &seg(0xDD, &[0, 4]),
                &seg(0xCC, &[0, 0x11]),
                &sof(2, 120, 90),
            ]),
            Some((120, 90)),
            "a thumbnail and a comment are no frame header"
        );
        // Where libjpeg stops with an error, the photo is refused: SOS, EOI or SOI again
        // before a frame; reserved and unknown markers; a stuffed zero; bytes that are no
        // marker; a frame header of the wrong length; a length below 2.
        for bad in [
            &seg(0xDA, &[1, 1, 0, 0, 63, 0])[..],
            &[0xFF, 0xD9],
            &[0xFF, 0xD8],
            &[0xFF, 0x02, 0, 2],
            &[0xFF, 0xC8, 0, 2],
            &[0xFF, 0xF0, 0, 2],
            &[0xFF, 0xDE, 0, 2],
            &[0xFF, 0x00],
            &[0x00, 0xFF, 0xC0],
            &[0xFF, 0xFE, 0, 1],
            &[0xFF, 0xFE, 0, 0],
        ] {
            assert_eq!(m(&[bad, &sof(0, 10, 10)]), None, "{bad:02X?}");
        }
        let mut short_sof = sof(0, 10, 10);
        short_sof[3] = 14;
        assert_eq!(m(&[&short_sof]), None);
    }

    #[test]
    fn truncated_files_are_refused_in_every_format() {
        let p = png(30, 20);
        // Up to the image data: signature, IHDR and the IDAT chunk's header.
        for n in 1..(8 + 25 + 8) {
            assert!(check(&p[..n]).is_err(), "PNG cut at {n}");
        }
        let mut j = vec![0xFF, 0xD8];
        j.extend_from_slice(&seg(0xE0, b"JFIF\0\x01\x01\0\0\x01\0\x01\0\0"));
        j.extend_from_slice(&sof(0, 30, 20));
        for n in 1..j.len() {
            assert!(check(&j[..n]).is_err(), "JPEG cut at {n}");
        }
        assert_eq!(check(&j), Ok(Format::Jpeg));
        // RIFF header, chunk header, then the bitstream's header: 10 bytes (VP8), 5 (VP8L).
        for (w, header) in [
            (webp(&[(b"VP8 ", vp8(30, 20, VP8_START))]), 10),
            (webp(&[(b"VP8L", vp8l(30, 20, 0))]), 5),
        ] {
            for n in 1..(12 + 8 + header) {
                assert!(check(&w[..n]).is_err(), "WebP cut at {n}");
            }
            assert_eq!(check(&w), Ok(Format::Webp));
        }
        let x = webp(&[(b"VP8X", vp8x(30, 20, 0)), (b"VP8L", vp8l(30, 20, 0))]);
        for n in 1..(12 + 8 + 10) {
            assert!(check(&x[..n]).is_err(), "WebP (VP8X) cut at {n}");
        }
    }

    #[test]
    fn png_edges_ihdr_first_and_checksummed() {
        let p = png(8, 8);
        // A chunk before IHDR (valid itself): no decoder reads such a file.
        let mut early = p[..8].to_vec();
        early.extend_from_slice(&chunk(b"tEXt", b"k\0v"));
        early.extend_from_slice(&p[8..]);
        assert_eq!(check(&early), Err(PhotoError::Unreadable));
        // IHDR's CRC wrong.
        let mut bad_crc = p.clone();
        bad_crc[29] ^= 1;
        assert_eq!(check(&bad_crc), Err(PhotoError::Unreadable));
        // An IHDR of the wrong length, or an impossible depth.
        let mut ihdr = p[16..29].to_vec();
        ihdr[8] = 3; // bit depth 3
        let mut bad_depth = p[..8].to_vec();
        bad_depth.extend_from_slice(&chunk(b"IHDR", &ihdr));
        bad_depth.extend_from_slice(&p[33..]);
        assert_eq!(check(&bad_depth), Err(PhotoError::Unreadable));
        // IHDR says 5000 wide: refused for its size before anything else is read.
        let mut wide = p[..8].to_vec();
        let mut ihdr = p[16..29].to_vec();
        ihdr[..4].copy_from_slice(&5000u32.to_be_bytes());
        wide.extend_from_slice(&chunk(b"IHDR", &ihdr));
        assert_eq!(check(&wide), Err(PhotoError::Dimensions));
    }

    #[test]
    fn webp_edges_vp8_vp8l_vp8x() {
        // VP8: the start code is checked; the two scale bits are no part of the size.
        assert_eq!(
            check(&webp(&[(b"VP8 ", vp8(30, 20, [0x9D, 0x01, 0x2B]))])),
            Err(PhotoError::Unreadable)
        );
        assert_eq!(
            dimensions(
                Format::Webp,
                &webp(&[(b"VP8 ", vp8(0xC000 | 30, 0x4000 | 20, VP8_START))])
            ),
            Some((30, 20))
        );
        // VP8L: signature and version 0.
        assert_eq!(
            check(&webp(&[(b"VP8L", vp8l(30, 20, 1))])),
            Err(PhotoError::Unreadable)
        );
        let mut wrong_sig = vp8l(30, 20, 0);
        wrong_sig[0] = 0x2E;
        assert_eq!(
            check(&webp(&[(b"VP8L", wrong_sig)])),
            Err(PhotoError::Unreadable)
        );
        assert_eq!(
            check(&webp(&[(b"VP8L", vp8l(16384, 16384, 0))])),
            Err(PhotoError::Dimensions)
        );
        // VP8X: the canvas is the size; it must hold one image.
        assert_eq!(
            dimensions(
                Format::Webp,
                &webp(&[
                    (b"VP8X", vp8x(64, 48, 0)),
                    (b"VP8 ", vp8(64, 48, VP8_START))
                ])
            ),
            Some((64, 48))
        );
        assert_eq!(
            check(&webp(&[(b"VP8X", vp8x(64, 48, 0))])),
            Err(PhotoError::Unreadable)
        );
        assert_eq!(
            check(&webp(&[
                (b"VP8X", vp8x(8192, 8192, 0)),
                (b"VP8L", vp8l(8, 8, 0))
            ])),
            Err(PhotoError::Dimensions)
        );
        // Another first chunk.
        assert_eq!(
            check(&webp(&[(b"VP8Q", vp8l(30, 20, 0))])),
            Err(PhotoError::Unreadable)
        );
    }

    #[test]
    fn polyglots_are_measured_as_what_their_magic_bytes_say_or_refused() {
        // PNG magic, JPEG body.
        let mut png_jpeg = b"\x89PNG\r\n\x1a\n".to_vec();
        png_jpeg.extend_from_slice(&jpeg(10, 10));
        assert_eq!(check(&png_jpeg), Err(PhotoError::Unreadable));
        // JPEG magic, PNG body: 0x89 is no marker.
        let mut jpeg_png = vec![0xFF, 0xD8, 0xFF];
        jpeg_png.extend_from_slice(&png(10, 10));
        assert_eq!(check(&jpeg_png), Err(PhotoError::Unreadable));
        // A RIFF WEBP around a JPEG.
        assert_eq!(
            check(&webp(&[(b"VP8 ", jpeg(10, 10))])),
            Err(PhotoError::Unreadable)
        );
        // A valid JPEG that is also an HTML page and carries a whole PNG (in comments), and
        // has a ZIP appended: a JPEG, of the JPEG's size; served as image/jpeg, nosniff,
        // sandboxed.
        let mut both = jpeg_of(&[
            &seg(0xFE, b"<html><script>alert(1)</script>"),
            &seg(0xFE, &png(5000, 5000)[..60]),
            &sof(0, 40, 30),
        ]);
        both.extend_from_slice(b"PK\x03\x04");
        assert_eq!(check(&both), Ok(Format::Jpeg));
        assert_eq!(dimensions(Format::Jpeg, &both), Some((40, 30)));
        // A PNG with a JPEG appended: a PNG, of the PNG's size.
        let mut png_then_jpeg = png(12, 12);
        png_then_jpeg.extend_from_slice(&bomb(0x01));
        assert_eq!(check(&png_then_jpeg), Ok(Format::Png));
        assert_eq!(dimensions(Format::Png, &png_then_jpeg), Some((12, 12)));
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
