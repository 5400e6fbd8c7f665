//! values.rs - the process bench/values.py traces: a Vec<String> of
//! argv[1] elements (default 200), passed to a function the probe prints
//! it at, about every 20 microseconds.  Prints "ready <pid>" once built.
use std::io::Write;

#[inline(never)]
pub fn wr_bench_strings(v: &Vec<String>) -> usize {
    unsafe { std::ptr::read_volatile(&v.len()) }
}

fn main() {
    let n: usize = std::env::args().nth(1).and_then(|s| s.parse().ok()).unwrap_or(200);
    let v: Vec<String> = (0..n).map(|i| format!("name-{}", i)).collect();
    println!("ready {}", std::process::id());
    std::io::stdout().flush().unwrap();
    loop {
        wr_bench_strings(&v);
        std::thread::sleep(std::time::Duration::from_micros(20));
    }
}
