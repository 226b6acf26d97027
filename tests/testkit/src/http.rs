//! Just enough HTTP/1.1 for a model server: read one request (headers and a
//! `Content-Length` body), write a whole response or a chunked one piece by
//! piece. Every response closes the connection, which keeps "cut the stream"
//! faults honest: the client sees the socket close mid-body.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::{TcpListener, TcpStream};

const MAX_HEAD: usize = 64 * 1024;
const MAX_BODY: usize = 256 * 1024 * 1024;

pub struct HttpRequest {
    pub method: String,
    pub path: String,
    /// Header names lower-cased, in the order sent.
    pub headers: Vec<(String, String)>,
    pub body: Vec<u8>,
}

/// Serve `listener` on a thread of its own, on `runtime`: each request read
/// is handed to `handle` with the fixture's shared state. The thread lives as
/// long as the test process; it holds nothing but the socket. Fixtures run
/// this way serve sync tests (which spawn the `quire` binary) as well as
/// async ones.
pub fn serve_on_thread<S, H, F>(
    listener: std::net::TcpListener,
    runtime: tokio::runtime::Runtime,
    shared: Arc<S>,
    handle: H,
) where
    S: Send + Sync + 'static,
    H: Fn(Arc<S>, TcpStream, HttpRequest) -> F + Send + Sync + Copy + 'static,
    F: Future<Output = ()> + Send + 'static,
{
    std::thread::spawn(move || {
        runtime.block_on(async move {
            let Ok(listener) = TcpListener::from_std(listener) else {
                return;
            };
            while let Ok((mut stream, _)) = listener.accept().await {
                let shared = shared.clone();
                tokio::spawn(async move {
                    if let Some(request) = read_request(&mut stream).await {
                        handle(shared, stream, request).await;
                    }
                });
            }
        });
    });
}

impl HttpRequest {
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(n, _)| n == name)
            .map(|(_, v)| v.as_str())
    }
}

/// Read one request, or `None` if the peer closed or sent something unreadable.
pub async fn read_request(stream: &mut TcpStream) -> Option<HttpRequest> {
    let mut buf = Vec::with_capacity(4096);
    let head_end = loop {
        if let Some(at) = find(&buf, b"\r\n\r\n") {
            break at;
        }
        if buf.len() > MAX_HEAD {
            return None;
        }
        let mut chunk = [0u8; 4096];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        buf.extend_from_slice(&chunk[..n]);
    };
    let head = String::from_utf8_lossy(&buf[..head_end]).into_owned();
    let mut lines = head.split("\r\n");
    let mut request_line = lines.next()?.split_whitespace();
    let method = request_line.next()?.to_owned();
    let path = request_line.next()?.to_owned();
    let headers: Vec<(String, String)> = lines
        .filter_map(|l| l.split_once(':'))
        .map(|(n, v)| (n.trim().to_ascii_lowercase(), v.trim().to_owned()))
        .collect();
    let length: usize = headers
        .iter()
        .find(|(n, _)| n == "content-length")
        .and_then(|(_, v)| v.parse().ok())
        .unwrap_or(0);
    if length > MAX_BODY {
        return None;
    }
    let mut body = buf[head_end + 4..].to_vec();
    while body.len() < length {
        let mut chunk = vec![0u8; (length - body.len()).min(64 * 1024)];
        let n = stream.read(&mut chunk).await.ok()?;
        if n == 0 {
            return None;
        }
        body.extend_from_slice(&chunk[..n]);
    }
    body.truncate(length);
    Some(HttpRequest {
        method,
        path,
        headers,
        body,
    })
}

fn find(haystack: &[u8], needle: &[u8]) -> Option<usize> {
    haystack.windows(needle.len()).position(|w| w == needle)
}

fn reason(status: u16) -> &'static str {
    match status {
        200 => "OK",
        301 => "Moved Permanently",
        302 => "Found",
        400 => "Bad Request",
        401 => "Unauthorized",
        403 => "Forbidden",
        422 => "Unprocessable Entity",
        404 => "Not Found",
        429 => "Too Many Requests",
        500 => "Internal Server Error",
        503 => "Service Unavailable",
        529 => "Overloaded",
        _ => "Status",
    }
}

/// Write a whole response with a `Content-Length`.
pub async fn write_full(
    stream: &mut TcpStream,
    status: u16,
    extra_headers: &[(&str, String)],
    content_type: &str,
    body: &[u8],
) -> std::io::Result<()> {
    let mut head = format!(
        "HTTP/1.1 {status} {}\r\ncontent-type: {content_type}\r\ncontent-length: {}\r\nconnection: close\r\n",
        reason(status),
        body.len()
    );
    for (name, value) in extra_headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str("\r\n");
    stream.write_all(head.as_bytes()).await?;
    stream.write_all(body).await?;
    stream.flush().await
}

/// Write a whole JSON response.
pub async fn write_json(
    stream: &mut TcpStream,
    status: u16,
    extra_headers: &[(&str, String)],
    body: &serde_json::Value,
) -> std::io::Result<()> {
    write_full(
        stream,
        status,
        extra_headers,
        "application/json",
        body.to_string().as_bytes(),
    )
    .await
}

/// What to do after each piece of a streamed body.
pub enum Piece {
    /// Bytes to send as one chunk (or several, with `write_size`).
    Data(Vec<u8>),
    /// Go silent for this long (a stalled server).
    Stall(Duration),
    /// Close the socket now, without the terminating chunk.
    Cut,
}

/// Write a chunked `text/event-stream` response. `write_size` re-splits every
/// piece into chunks of at most that many bytes, each flushed on its own, so the
/// client sees arbitrary chunk boundaries (mid-line, mid-UTF-8 character).
pub async fn write_stream(
    stream: &mut TcpStream,
    pieces: Vec<Piece>,
    write_size: Option<usize>,
    gap: Duration,
) -> std::io::Result<()> {
    let head = "HTTP/1.1 200 OK\r\ncontent-type: text/event-stream\r\ncache-control: no-cache\r\ntransfer-encoding: chunked\r\nconnection: close\r\n\r\n";
    stream.write_all(head.as_bytes()).await?;
    stream.flush().await?;
    for piece in pieces {
        match piece {
            Piece::Data(bytes) => {
                let size = write_size.unwrap_or(bytes.len()).max(1);
                for part in bytes.chunks(size) {
                    stream
                        .write_all(format!("{:x}\r\n", part.len()).as_bytes())
                        .await?;
                    stream.write_all(part).await?;
                    stream.write_all(b"\r\n").await?;
                    stream.flush().await?;
                }
                if !gap.is_zero() {
                    tokio::time::sleep(gap).await;
                }
            }
            Piece::Stall(pause) => tokio::time::sleep(pause).await,
            Piece::Cut => {
                stream.shutdown().await?;
                return Ok(());
            }
        }
    }
    stream.write_all(b"0\r\n\r\n").await?;
    stream.flush().await
}
