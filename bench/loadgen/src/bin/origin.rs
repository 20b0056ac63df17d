//! `bench-origin`: the application a benchmark forwards to. It answers every POST 200 at
//! once with an empty body, over HTTP/1.1 with keep-alive, a thread per connection, and
//! counts them: `GET /count` answers how many it took. `bench/run.sh`'s fan-out step
//! measures hookonce's cost of forwarding, not an application's, and how much of it was
//! done within a round.
//!
//! ```text
//! bench-origin            # prints its port, then serves until killed
//! ```

use std::io::{BufRead, BufReader, Read, Write};
use std::net::{TcpListener, TcpStream};
use std::sync::atomic::{AtomicU64, Ordering};

/// POSTs taken.
static TAKEN: AtomicU64 = AtomicU64::new(0);

/// Serves one connection until the peer closes it or sends something that is not a request
/// with a `content-length` (hookonce's POSTs all have one).
fn serve(stream: TcpStream) -> std::io::Result<()> {
    let mut out = stream.try_clone()?;
    let mut input = BufReader::new(stream);
    let mut line = String::new();
    loop {
        let mut length = 0usize;
        let mut post = None;
        // The request line, then headers up to the blank line.
        loop {
            line.clear();
            if input.read_line(&mut line)? == 0 {
                return Ok(());
            }
            let header = line.trim_end();
            if header.is_empty() {
                break;
            }
            post.get_or_insert_with(|| header.starts_with("POST "));
            if let Some((name, value)) = header.split_once(':') {
                if name.eq_ignore_ascii_case("content-length") {
                    length = value.trim().parse().unwrap_or(0);
                }
            }
        }
        std::io::copy(&mut (&mut input).take(length as u64), &mut std::io::sink())?;
        if post == Some(true) {
            TAKEN.fetch_add(1, Ordering::Relaxed);
            out.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")?;
        } else {
            let n = TAKEN.load(Ordering::Relaxed).to_string();
            let head = format!("HTTP/1.1 200 OK\r\ncontent-length: {}\r\n\r\n", n.len());
            out.write_all(format!("{head}{n}").as_bytes())?;
        }
    }
}

fn main() -> std::io::Result<()> {
    let listener = TcpListener::bind("127.0.0.1:0")?;
    println!("{}", listener.local_addr()?.port());
    std::io::stdout().flush()?;
    for stream in listener.incoming().flatten() {
        std::thread::spawn(move || serve(stream));
    }
    Ok(())
}
