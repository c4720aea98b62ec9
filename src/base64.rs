//! Base64 (RFC 4648) for BinData, `$convert` and links: the `base64` crate's
//! general-purpose engine cost the page's wasm about 3 KB gzipped for four calls.
//! Decoding reports the same errors, at the same offsets, with the same messages
//! as base64 0.22 (the tests compare both on every short input).
use std::fmt;

/// Which alphabet and padding rule.
#[derive(Clone, Copy)]
pub enum Alphabet {
    /// `+` `/`, padded with `=` (base64's `STANDARD`).
    Standard,
    /// `-` `_`, no padding (base64's `URL_SAFE_NO_PAD`).
    UrlNoPad,
}

/// What `=` padding decoding accepts.
#[derive(Clone, Copy, PartialEq)]
pub enum Padding {
    /// Padded to a multiple of four (base64's `RequireCanonical`).
    Canonical,
    /// Padded or not (base64's `Indifferent`).
    Indifferent,
    /// No `=` at all (base64's `RequireNone`).
    None,
}

/// base64's `DecodeError`, with its `Display` messages.
#[derive(Debug, Clone, PartialEq)]
pub enum DecodeError {
    InvalidByte(usize, u8),
    InvalidLength(usize),
    InvalidLastSymbol(usize, u8),
    InvalidPadding,
}

impl fmt::Display for DecodeError {
    fn fmt(&self, f: &mut fmt::Formatter) -> fmt::Result {
        match *self {
            Self::InvalidByte(index, byte) => write!(f, "Invalid symbol {byte}, offset {index}."),
            Self::InvalidLength(len) => write!(f, "Invalid input length: {len}"),
            Self::InvalidLastSymbol(index, byte) => {
                write!(f, "Invalid last symbol {byte}, offset {index}.")
            }
            Self::InvalidPadding => f.write_str("Invalid padding"),
        }
    }
}

const PAD: u8 = b'=';

fn symbols(alphabet: Alphabet) -> &'static [u8; 64] {
    match alphabet {
        Alphabet::Standard => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/",
        Alphabet::UrlNoPad => b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_",
    }
}

fn morsel(alphabet: Alphabet, b: u8) -> Option<u8> {
    Some(match b {
        b'A'..=b'Z' => b - b'A',
        b'a'..=b'z' => b - b'a' + 26,
        b'0'..=b'9' => b - b'0' + 52,
        b'+' if matches!(alphabet, Alphabet::Standard) => 62,
        b'/' if matches!(alphabet, Alphabet::Standard) => 63,
        b'-' if matches!(alphabet, Alphabet::UrlNoPad) => 62,
        b'_' if matches!(alphabet, Alphabet::UrlNoPad) => 63,
        _ => return None,
    })
}

/// Append the encoding of `bytes` to `out` (padded for `Standard` only).
pub fn encode_into(alphabet: Alphabet, bytes: &[u8], out: &mut String) {
    let sym = symbols(alphabet);
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, &b)| n | u32::from(b) << (16 - 8 * i));
        for i in 0..=chunk.len() {
            out.push(char::from(sym[(n >> (18 - 6 * i) & 63) as usize]));
        }
        if matches!(alphabet, Alphabet::Standard) {
            for _ in chunk.len()..3 {
                out.push('=');
            }
        }
    }
}

pub fn encode(alphabet: Alphabet, bytes: &[u8]) -> String {
    let mut out = String::with_capacity(bytes.len().div_ceil(3) * 4);
    encode_into(alphabet, bytes, &mut out);
    out
}

/// Decode, checking in base64 0.22's order: a bad last byte of an input whose
/// length is 1 mod 4, then every complete quad but the last, then the final
/// 1-4 bytes (padding placement, length, padding rule, unused trailing bits).
pub fn decode(alphabet: Alphabet, padding: Padding, input: &[u8]) -> Result<Vec<u8>, DecodeError> {
    let rem = input.len() % 4;
    if rem == 1 {
        let last = input[input.len() - 1];
        if last != PAD && morsel(alphabet, last).is_none() {
            return Err(DecodeError::InvalidByte(input.len() - 1, last));
        }
    }
    let quads = input
        .len()
        .saturating_sub(rem)
        .saturating_sub(usize::from(rem == 0) * 4);
    let mut out = Vec::with_capacity(input.len().div_ceil(4) * 3);
    for (q, chunk) in input[..quads].chunks_exact(4).enumerate() {
        let mut n = 0u32;
        for (i, &b) in chunk.iter().enumerate() {
            let m = morsel(alphabet, b).ok_or(DecodeError::InvalidByte(q * 4 + i, b))?;
            n = n << 6 | u32::from(m);
        }
        out.extend_from_slice(&n.to_be_bytes()[1..]);
    }
    // The final 1-4 bytes.
    let mut morsels = 0usize;
    let mut pads = 0usize;
    let mut first_pad = 0usize;
    let mut last_symbol = 0u8;
    let mut n = 0u32;
    for (i, &b) in input[quads..].iter().enumerate() {
        if b == PAD {
            if i < 2 {
                return Err(DecodeError::InvalidByte(quads + i, b));
            }
            if pads == 0 {
                first_pad = i;
            }
            pads += 1;
            continue;
        }
        if pads > 0 {
            return Err(DecodeError::InvalidByte(quads + first_pad, PAD));
        }
        last_symbol = b;
        let m = morsel(alphabet, b).ok_or(DecodeError::InvalidByte(quads + i, b))?;
        n |= u32::from(m) << (26 - 6 * morsels);
        morsels += 1;
    }
    if !input.is_empty() && morsels < 2 {
        return Err(DecodeError::InvalidLength(quads + morsels));
    }
    match padding {
        Padding::Indifferent => {}
        Padding::Canonical if !(pads + morsels).is_multiple_of(4) => {
            return Err(DecodeError::InvalidPadding)
        }
        Padding::None if pads > 0 => return Err(DecodeError::InvalidPadding),
        _ => {}
    }
    let len = morsels * 6 / 8;
    // Bits of the last symbol beyond the decoded bytes must be zero.
    if n & (!0u32 >> (len * 8)) != 0 {
        return Err(DecodeError::InvalidLastSymbol(
            quads + morsels - 1,
            last_symbol,
        ));
    }
    out.extend_from_slice(&n.to_be_bytes()[..len]);
    Ok(out)
}

#[cfg(test)]
mod tests {
    use super::*;
    use ::base64::engine::general_purpose::{GeneralPurpose, GeneralPurposeConfig};
    use ::base64::engine::{DecodePaddingMode, Engine};

    fn reference(alphabet: Alphabet, padding: Padding) -> GeneralPurpose {
        let (a, pad) = match alphabet {
            Alphabet::Standard => (&::base64::alphabet::STANDARD, true),
            Alphabet::UrlNoPad => (&::base64::alphabet::URL_SAFE, false),
        };
        let mode = match padding {
            Padding::Canonical => DecodePaddingMode::RequireCanonical,
            Padding::Indifferent => DecodePaddingMode::Indifferent,
            Padding::None => DecodePaddingMode::RequireNone,
        };
        GeneralPurpose::new(
            a,
            GeneralPurposeConfig::new()
                .with_encode_padding(pad)
                .with_decode_padding_mode(mode),
        )
    }

    fn convert(e: ::base64::DecodeError) -> DecodeError {
        match e {
            ::base64::DecodeError::InvalidByte(i, b) => DecodeError::InvalidByte(i, b),
            ::base64::DecodeError::InvalidLength(l) => DecodeError::InvalidLength(l),
            ::base64::DecodeError::InvalidLastSymbol(i, b) => DecodeError::InvalidLastSymbol(i, b),
            ::base64::DecodeError::InvalidPadding => DecodeError::InvalidPadding,
        }
    }

    const MODES: [(Alphabet, Padding); 4] = [
        (Alphabet::Standard, Padding::Canonical),
        (Alphabet::Standard, Padding::Indifferent),
        (Alphabet::UrlNoPad, Padding::None),
        (Alphabet::UrlNoPad, Padding::Indifferent),
    ];

    fn check(input: &[u8]) {
        for (a, p) in MODES {
            let ours = decode(a, p, input);
            let theirs = reference(a, p).decode(input).map_err(convert);
            assert_eq!(ours, theirs, "{:?}", String::from_utf8_lossy(input));
            if let (Err(x), Err(y)) = (&ours, reference(a, p).decode(input)) {
                assert_eq!(x.to_string(), y.to_string());
            }
        }
    }

    #[test]
    fn decode_matches_the_base64_crate_on_every_short_input() {
        // Symbols that exercise each case: zero and non-zero trailing bits,
        // both alphabets' 62/63, padding, and bytes outside every alphabet.
        let alphabet = b"AQgw/_+-= .";
        let mut input = Vec::new();
        for len in 0..=5u32 {
            let count = alphabet.len().pow(len);
            for mut k in 0..count {
                input.clear();
                for _ in 0..len {
                    input.push(alphabet[k % alphabet.len()]);
                    k /= alphabet.len();
                }
                check(&input);
            }
        }
        // Longer ones (a complete quad before the final bytes) at random.
        let mut seed = 0x2545_F491_4F6C_DD1Du64;
        for _ in 0..50_000 {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            let len = 6 + (seed % 8) as usize;
            input.clear();
            for i in 0..len {
                input.push(alphabet[(seed >> (4 * i)) as usize % alphabet.len()]);
            }
            check(&input);
        }
    }

    #[test]
    fn round_trips_and_matches_on_random_bytes() {
        let mut seed = 0x9E37_79B9_7F4A_7C15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        for len in 0..200 {
            for _ in 0..20 {
                let bytes: Vec<u8> = (0..len).map(|_| next() as u8).collect();
                for (a, p) in MODES {
                    let text = encode(a, &bytes);
                    assert_eq!(text, reference(a, p).encode(&bytes));
                    assert_eq!(decode(a, p, text.as_bytes()), Ok(bytes.clone()));
                    // Corrupt one byte: same verdict as the crate.
                    let mut bad = text.clone().into_bytes();
                    if !bad.is_empty() {
                        let i = (next() as usize) % bad.len();
                        bad[i] = b"A=/_.+-Q"[(next() % 8) as usize];
                        check(&bad);
                    }
                }
            }
        }
    }
}
