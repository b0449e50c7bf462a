//! An HTTP answer's body read whole, up to a limit: refused at once when its
//! `Content-Length` is past it, else read in chunks and refused as soon as
//! they pass it. Keeper's answers (`keeper.max_response_bytes`) and the
//! server's calls to an OAuth authorization server are read this way.

/// Why a capped read gave no body.
#[derive(Debug)]
pub enum CappedReadError {
    /// The body is larger than the limit.
    TooLarge,
    /// The connection failed while the body was read.
    Transport(reqwest::Error),
}

/// Reads `response`'s body, at most `limit` bytes.
pub async fn read_capped(
    response: &mut reqwest::Response,
    limit: u64,
) -> Result<Vec<u8>, CappedReadError> {
    if response.content_length().is_some_and(|len| len > limit) {
        return Err(CappedReadError::TooLarge);
    }
    let capacity = response
        .content_length()
        .unwrap_or(0)
        .min(limit)
        .min(1 << 20);
    let mut body = Vec::with_capacity(usize::try_from(capacity).unwrap_or(0));
    while let Some(chunk) = response.chunk().await.map_err(CappedReadError::Transport)? {
        if (body.len() + chunk.len()) as u64 > limit {
            return Err(CappedReadError::TooLarge);
        }
        body.extend_from_slice(&chunk);
    }
    Ok(body)
}
