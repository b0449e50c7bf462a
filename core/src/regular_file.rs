//! Reading a file Herald is told to read (the settings file, a file a setting
//! names: `keeper.ca_file`, `secret://file/...`; a KB entry): a regular file
//! only, bounded, and never blocking on anything else.
//!
//! The file is opened with `O_NONBLOCK` (a FIFO opens at once instead of
//! waiting for a writer, a device never stalls the open) and its type is
//! checked on the opened descriptor (`fstat`), so what is read is what was
//! checked even if the path is swapped meanwhile; the size cap is applied
//! before a byte is read (`/dev/zero` or a growing file is never read past
//! it).

use std::fs::{File, Metadata};
use std::io::Read;
use std::path::Path;

/// Why a file could not be read.
#[derive(Debug, thiserror::Error)]
pub(crate) enum RegularFileError {
    /// The file could not be opened (missing, no permission, ...).
    #[error("cannot open it: {0}")]
    Open(std::io::Error),
    /// It is not a regular file.
    #[error("it is {0}, not a regular file")]
    NotRegular(&'static str),
    /// It is larger than the cap.
    #[error("it is larger than {limit} bytes")]
    TooLarge {
        /// The cap, in bytes.
        limit: u64,
    },
    /// Reading it failed.
    #[error("cannot read it: {0}")]
    Read(std::io::Error),
}

/// Opens `path` for reading without blocking, and checks on the opened file
/// that it is a regular one; returns it with its metadata.
pub(crate) fn open(path: &Path) -> Result<(File, Metadata), RegularFileError> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        // A FIFO would otherwise block the open until a writer comes; a
        // regular file's reads ignore the flag.
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOCTTY);
    }
    let file = options.open(path).map_err(RegularFileError::Open)?;
    let meta = file.metadata().map_err(RegularFileError::Open)?;
    if !meta.is_file() {
        return Err(RegularFileError::NotRegular(kind(&meta)));
    }
    Ok((file, meta))
}

/// Reads `path` whole: a regular file of at most `max_bytes` (checked on the
/// opened file before reading, and again while reading, should it grow).
pub(crate) fn read(path: &Path, max_bytes: u64) -> Result<Vec<u8>, RegularFileError> {
    let (file, meta) = open(path)?;
    read_opened(file, &meta, max_bytes)
}

/// [`read`] of a file [`open`] returned.
pub(crate) fn read_opened(
    file: File,
    meta: &Metadata,
    max_bytes: u64,
) -> Result<Vec<u8>, RegularFileError> {
    let too_large = RegularFileError::TooLarge { limit: max_bytes };
    if meta.len() > max_bytes {
        return Err(too_large);
    }
    let mut bytes = Vec::with_capacity(meta.len() as usize + 1);
    file.take(max_bytes + 1)
        .read_to_end(&mut bytes)
        .map_err(RegularFileError::Read)?;
    if bytes.len() as u64 > max_bytes {
        return Err(too_large);
    }
    Ok(bytes)
}

/// [`read`] as UTF-8 text.
pub(crate) fn read_text(path: &Path, max_bytes: u64) -> Result<String, RegularFileError> {
    String::from_utf8(read(path, max_bytes)?).map_err(|_| {
        RegularFileError::Read(std::io::Error::new(
            std::io::ErrorKind::InvalidData,
            "it is not UTF-8 text",
        ))
    })
}

/// What a file that is not regular is, for the message.
fn kind(meta: &Metadata) -> &'static str {
    if meta.is_dir() {
        return "a directory";
    }
    #[cfg(unix)]
    {
        use std::os::unix::fs::FileTypeExt;
        let t = meta.file_type();
        if t.is_fifo() {
            return "a FIFO";
        }
        if t.is_char_device() {
            return "a character device";
        }
        if t.is_block_device() {
            return "a block device";
        }
        if t.is_socket() {
            return "a socket";
        }
    }
    "a special file"
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_regular_file_is_read_within_its_cap() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.txt");
        std::fs::write(&path, "hello").unwrap();
        assert_eq!(read_text(&path, 5).unwrap(), "hello");
        assert!(matches!(
            read(&path, 4),
            Err(RegularFileError::TooLarge { limit: 4 })
        ));
        assert!(matches!(
            read(&dir.path().join("missing"), 4),
            Err(RegularFileError::Open(_))
        ));
        let e = read(dir.path(), 4).unwrap_err();
        assert_eq!(e.to_string(), "it is a directory, not a regular file");
    }

    #[cfg(unix)]
    #[test]
    fn special_files_are_refused_without_blocking() {
        let e = read(Path::new("/dev/zero"), 1 << 20).unwrap_err();
        assert_eq!(
            e.to_string(),
            "it is a character device, not a regular file"
        );
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo");
        let c = std::ffi::CString::new(fifo.to_str().unwrap()).unwrap();
        // SAFETY: a valid NUL-terminated path.
        assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
        let e = read(&fifo, 1 << 20).unwrap_err();
        assert_eq!(e.to_string(), "it is a FIFO, not a regular file");
    }
}
