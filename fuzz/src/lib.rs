//! # hookonce-fuzz
//!
//! Structured property fuzzing of everything in hookonce-core that reads untrusted text:
//! each scheme's signature headers and verification, `Event::parse`, source
//! configuration, `Idempotency-Key`, `Retry-After` (IMF-fixdate), RFC 3339 and the
//! percent-decoding router.
//!
//! A target is a function of bytes (so a coverage-guided fuzzer could call it as it is)
//! that must never panic and checks properties with oracles of its own: a signature made
//! for a body verifies and a tampered one does not; a percent-encoded string decodes back;
//! a date built from its parts parses to the seconds computed here independently. The
//! driver (`src/bin/fuzz.rs`, `make fuzz`) feeds each target generated inputs (a small
//! grammar per target), mutations of them and of the seed corpus, and random bytes.

#![forbid(unsafe_code)]

pub mod gen;
pub mod targets;

/// A small, seedable PRNG (splitmix64): runs are reproducible from their seed.
#[derive(Clone, Debug)]
pub struct Rng(u64);

impl Rng {
    /// A generator for `seed`.
    pub fn new(seed: u64) -> Rng {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    /// Uniform in `0..n` (n > 0).
    pub fn below(&mut self, n: u64) -> u64 {
        self.next_u64() % n
    }

    /// True with probability `per_mille / 1000`.
    pub fn chance(&mut self, per_mille: u32) -> bool {
        self.below(1000) < u64::from(per_mille)
    }

    /// One of `items`.
    pub fn pick<'a, T>(&mut self, items: &'a [T]) -> &'a T {
        &items[self.below(items.len() as u64) as usize]
    }

    /// Fisher-Yates.
    pub fn shuffle<T>(&mut self, v: &mut [T]) {
        for i in (1..v.len()).rev() {
            v.swap(i, self.below(i as u64 + 1) as usize);
        }
    }

    /// `n` random bytes.
    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.next_u64() as u8).collect()
    }
}

/// Reads a target's input as a sequence of fields, so one byte string carries several
/// values (headers, a body, a clock). Fields are separated by `0x1f` (unit separator),
/// which the generators never put inside a field; a missing field reads as empty.
pub struct Fields<'a>(std::slice::Split<'a, u8, fn(&u8) -> bool>);

impl<'a> Fields<'a> {
    /// The fields of `data`.
    pub fn of(data: &'a [u8]) -> Fields<'a> {
        Fields(data.split(|b| *b == SEP))
    }

    /// The next field's bytes.
    pub fn bytes(&mut self) -> &'a [u8] {
        self.0.next().unwrap_or_default()
    }

    /// The next field as text (lossy: HTTP headers reach the core as strings).
    pub fn text(&mut self) -> String {
        String::from_utf8_lossy(self.bytes()).into_owned()
    }

    /// The next field as a signed number (0 if it is none).
    pub fn int(&mut self) -> i64 {
        self.text().trim().parse().unwrap_or(0)
    }
}

/// The field separator of [`Fields`].
pub const SEP: u8 = 0x1f;

/// Joins fields into one input for [`Fields`].
pub fn join(fields: &[&[u8]]) -> Vec<u8> {
    fields.join(&[SEP][..])
}

/// FNV-1a: a checksum, so a target can tell a generated input from a mutated one.
fn fnv(data: &[u8]) -> u64 {
    data.iter().fold(0xcbf2_9ce4_8422_2325, |h, b| {
        (h ^ u64::from(*b)).wrapping_mul(0x0100_0000_01b3)
    })
}

/// `payload`, then what the generator knows the answer to be (the oracle), then a trailer
/// with the payload's length and a checksum of everything else: a mutation anywhere
/// invalidates the oracle, and the target then checks only what holds for any input.
pub fn with_oracle(payload: Vec<u8>, oracle: &[&[u8]]) -> Vec<u8> {
    let len = payload.len();
    let mut out = payload;
    out.push(SEP);
    out.extend_from_slice(&join(oracle));
    let len = format!("{len:08x}");
    let sum = fnv(&[&out[..], len.as_bytes()].concat());
    out.push(SEP);
    out.extend_from_slice(format!("#{sum:016x}{len}").as_bytes());
    out
}

/// The payload, and the oracle if the input is exactly what a generator made.
pub fn split_oracle(data: &[u8]) -> (&[u8], Option<&[u8]>) {
    const TRAILER: usize = 26;
    let Some(start) = data.len().checked_sub(TRAILER) else {
        return (data, None);
    };
    let t = &data[start..];
    if t[0] != SEP || t[1] != b'#' {
        return (data, None);
    }
    let hex = |b: &[u8]| {
        std::str::from_utf8(b)
            .ok()
            .and_then(|s| usize::from_str_radix(s, 16).ok())
    };
    match (hex(&t[2..18]), hex(&t[18..26])) {
        (Some(sum), Some(len))
            if sum as u64 == fnv(&[&data[..start], &t[18..26]].concat()) && len < start =>
        {
            (&data[..len], Some(&data[len + 1..start]))
        }
        _ => (data, None),
    }
}

/// What one campaign on one target found.
#[derive(Debug, Default)]
pub struct Findings {
    /// Inputs run.
    pub cases: u64,
    /// Inputs that panicked, with the panic message.
    pub panics: Vec<(Vec<u8>, String)>,
}

/// Runs `input` through `target`, catching a panic as a finding.
pub fn run_one(target: &targets::Target, input: &[u8]) -> Result<(), String> {
    std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| (target.run)(input))).map_err(|e| {
        e.downcast_ref::<String>()
            .cloned()
            .or_else(|| e.downcast_ref::<&str>().map(|s| (*s).to_owned()))
            .unwrap_or_else(|| "a panic".into())
    })
}

/// `cases` inputs for `target` from `seed`: the corpus files first, then a mix of
/// generated inputs (40%), mutations of generated or corpus inputs (45%) and random bytes.
/// Stops collecting after 20 panics.
pub fn campaign(target: &targets::Target, corpus: &[Vec<u8>], cases: u64, seed: u64) -> Findings {
    let mut rng = Rng::new(seed);
    let mut found = Findings::default();
    let check = |input: Vec<u8>, found: &mut Findings| {
        found.cases += 1;
        if let Err(msg) = run_one(target, &input) {
            if found.panics.len() < 20 {
                found.panics.push((input, msg));
            }
        }
    };
    for input in corpus {
        check(input.clone(), &mut found);
    }
    while found.cases < cases {
        let input = match rng.below(20) {
            0..=7 => (target.generate)(&mut rng),
            8..=16 => {
                let mut input = match corpus.is_empty() || rng.chance(700) {
                    true => (target.generate)(&mut rng),
                    false => rng.pick(corpus).clone(),
                };
                for _ in 0..1 + rng.below(4) {
                    gen::mutate(&mut rng, &mut input, target.dictionary);
                }
                input
            }
            _ => {
                let n = rng.below(120) as usize;
                rng.bytes(n)
            }
        };
        check(input, &mut found);
    }
    found
}

/// The seed corpus and regression inputs of `target`: `fuzz/corpus/<target>/*`.
pub fn corpus(target: &str) -> Vec<Vec<u8>> {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("corpus")
        .join(target);
    let mut files: Vec<_> = std::fs::read_dir(dir)
        .into_iter()
        .flatten()
        .flatten()
        .map(|e| e.path())
        .collect();
    files.sort();
    files.iter().filter_map(|p| std::fs::read(p).ok()).collect()
}
