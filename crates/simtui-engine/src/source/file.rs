//! Reading one file as text: opened without blocking, size-checked, binary files
//! recognised from their head, UTF-16 and byte-order marks decoded.

use super::opener::Opener;
pub use super::opener::open_nonblocking;
use super::skip::SkipReason;
use std::fs::{self, File};
use std::io::Read;
use std::path::Path;

/// Opens a file for reading without ever blocking on a FIFO or device, and reads at most
/// `max_bytes` (a file that grew past it since the walk is skipped, not truncated).
/// Fails with why it is not a document (special, too large, binary, unreadable) and a
/// detail for messages. See [`decode`] for how bytes become text.
pub fn read_file(path: &Path, max_bytes: u64) -> Result<String, (SkipReason, String)> {
    read_opened(open_nonblocking(path), max_bytes)
}

/// [`read_file`] opened by `opener` (files of one folder read one after another).
pub fn read_file_with(
    opener: &mut Opener,
    path: &Path,
    max_bytes: u64,
) -> Result<String, (SkipReason, String)> {
    read_opened(opener.open(path), max_bytes)
}

fn read_opened(
    file: std::io::Result<File>,
    max_bytes: u64,
) -> Result<String, (SkipReason, String)> {
    let unreadable = |e: std::io::Error| (SkipReason::Unreadable, e.to_string());
    let file = file.map_err(unreadable)?;
    let meta = file.metadata().map_err(unreadable)?;
    if !meta.is_file() {
        return Err((SkipReason::Special, String::new()));
    }
    if meta.len() > max_bytes {
        return Err((SkipReason::TooLarge, format!("{} bytes", meta.len())));
    }
    // The head first: a binary file is skipped after 8 KiB, never read whole (a 30 MB
    // binary within --max-bytes used to be read completely before its NUL was seen).
    let mut file = file.take(max_bytes.saturating_add(1));
    let len = meta.len() as usize;
    let mut bytes = Vec::with_capacity(len.min(BINARY_HEAD) + 1);
    // A file smaller than the head is read with one read(2) into room for one byte more
    // than fstat's size: a short read of a regular file means its end (POSIX), so when
    // exactly the size comes back, the second read that would return 0 is skipped (one
    // system call in five per small file). Anything else (a file that changed, a
    // /proc-like file whose size is not its length) goes on the general path below.
    let mut at_end = false;
    if len < BINARY_HEAD {
        bytes.resize(len + 1, 0);
        let n = loop {
            match file.read(&mut bytes) {
                Err(e) if e.kind() == std::io::ErrorKind::Interrupted => continue,
                r => break r.map_err(unreadable)?,
            }
        };
        bytes.truncate(n);
        at_end = n == len;
    }
    if !at_end {
        (&mut file)
            .take(BINARY_HEAD.saturating_sub(bytes.len()) as u64)
            .read_to_end(&mut bytes)
            .map_err(unreadable)?;
    }
    if !bytes.starts_with(&[0xFF, 0xFE]) && !bytes.starts_with(&[0xFE, 0xFF]) && bytes.contains(&0)
    {
        return Err((SkipReason::Binary, "NUL byte".to_string()));
    }
    if !at_end && bytes.len() == BINARY_HEAD {
        // Not at the end yet (a shorter head means `read_to_end` saw the end of the file:
        // most files are smaller than the head, and this saves them a system call).
        bytes.reserve((meta.len() as usize).saturating_sub(bytes.len()));
        file.read_to_end(&mut bytes).map_err(unreadable)?;
    }
    if bytes.len() as u64 > max_bytes {
        return Err((SkipReason::TooLarge, format!("over {max_bytes} bytes")));
    }
    decode(bytes)
}

/// How much of a file is looked at for a NUL byte (binary).
const BINARY_HEAD: usize = 8192;

/// What a path that is no regular file is, for messages: "a folder", "a FIFO", "a
/// socket", "a device", "a symbolic link" (not followed), else "a special file".
pub fn kind_name(ft: &fs::FileType) -> &'static str {
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        if ft.is_fifo() {
            return "a FIFO";
        }
        if ft.is_socket() {
            return "a socket";
        }
        if ft.is_block_device() || ft.is_char_device() {
            return "a device";
        }
    }
    if ft.is_dir() {
        "a folder"
    } else if ft.is_symlink() {
        "a symbolic link"
    } else {
        "a special file"
    }
}

/// Bytes to text: UTF-16 with a byte-order mark is decoded, a UTF-8 BOM dropped, anything
/// else decoded as UTF-8 with invalid sequences replaced. A NUL byte in the first 8 KiB
/// (outside UTF-16) marks the file as binary.
pub fn decode(bytes: Vec<u8>) -> Result<String, (SkipReason, String)> {
    let utf16 = |be: bool| {
        let units = bytes[2..].chunks_exact(2).map(|c| {
            if be {
                u16::from_be_bytes([c[0], c[1]])
            } else {
                u16::from_le_bytes([c[0], c[1]])
            }
        });
        Ok(char::decode_utf16(units)
            .map(|r| r.unwrap_or(char::REPLACEMENT_CHARACTER))
            .collect())
    };
    match bytes.as_slice() {
        [0xFF, 0xFE, ..] => return utf16(false),
        [0xFE, 0xFF, ..] => return utf16(true),
        _ => {}
    }
    let head = &bytes[..bytes.len().min(BINARY_HEAD)];
    if head.contains(&0) {
        return Err((SkipReason::Binary, "NUL byte".to_string()));
    }
    let start = if bytes.starts_with(&[0xEF, 0xBB, 0xBF]) {
        3
    } else {
        0
    };
    match String::from_utf8(bytes) {
        Ok(mut s) => {
            s.drain(..start);
            Ok(s)
        }
        Err(e) => Ok(String::from_utf8_lossy(&e.into_bytes()[start..]).into_owned()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn files_of_every_size_around_the_head_read_back_whole() {
        let d = tempfile::tempdir().unwrap();
        for len in [
            0,
            1,
            100,
            BINARY_HEAD - 1,
            BINARY_HEAD,
            BINARY_HEAD + 1,
            3 * BINARY_HEAD + 7,
        ] {
            let text: String = (0..len).map(|i| (b'a' + (i % 26) as u8) as char).collect();
            let path = d.path().join(format!("f{len}.txt"));
            fs::write(&path, &text).unwrap();
            assert_eq!(read_file(&path, u64::MAX).unwrap(), text, "{len} bytes");
            let limit = len as u64;
            assert_eq!(
                read_file(&path, limit).unwrap(),
                text,
                "{len} bytes at the limit"
            );
            if len > 0 {
                let err = read_file(&path, limit - 1).unwrap_err();
                assert_eq!(err.0, SkipReason::TooLarge, "{len} bytes over the limit");
            }
        }
    }

    #[cfg(target_os = "linux")]
    #[test]
    fn a_file_whose_size_is_not_its_length_is_read_whole() {
        // /proc files say 0 bytes and have more: the one-read shortcut must not trust that.
        let text = read_file(Path::new("/proc/self/status"), u64::MAX).unwrap();
        assert!(text.contains("Name:"), "{text:?}");
    }

    #[test]
    fn decodes_utf16_and_boms_and_invalid_utf8() {
        let mut le = vec![0xFF, 0xFE];
        for u in "héllo".encode_utf16() {
            le.extend_from_slice(&u.to_le_bytes());
        }
        assert_eq!(decode(le).unwrap(), "héllo");
        let mut be = vec![0xFE, 0xFF];
        for u in "héllo".encode_utf16() {
            be.extend_from_slice(&u.to_be_bytes());
        }
        assert_eq!(decode(be).unwrap(), "héllo");
        assert_eq!(decode(b"\xEF\xBB\xBFabc".to_vec()).unwrap(), "abc");
        assert_eq!(decode(b"a\xFFb".to_vec()).unwrap(), "a\u{FFFD}b");
        assert_eq!(decode(b"a\0b".to_vec()).unwrap_err().0, SkipReason::Binary);
    }
}
