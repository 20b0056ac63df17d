//! The publish key object's statements (`edge/src/store/keys/statements.rs`, run natively
//! here on the SQLite that workerd embeds): a key accepted again after it expired replaces
//! its state in the one row, a message id is recorded once, and forgetting the key keeps
//! its messages.

#[path = "../../edge/src/store/keys/statements.rs"]
#[allow(dead_code, unreachable_pub)]
mod statements;

use rusqlite::{params, Connection};

type Key = (String, i64, String, Vec<u8>, i64);

fn key(c: &Connection) -> Option<Key> {
    c.query_row(statements::KEY, [], |r| {
        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?, r.get(4)?))
    })
    .ok()
}

#[test]
fn an_expired_key_accepted_again_is_replaced_and_forgetting_it_keeps_its_messages() {
    let c = Connection::open_in_memory().unwrap();
    c.execute_batch(statements::SCHEMA).unwrap();
    assert_eq!(key(&c), None);
    let put = |fingerprint: &str, body: &[u8], expires: i64| {
        c.execute(
            statements::PUT_KEY,
            params!["k-1", fingerprint, 202, "application/json", body, expires],
        )
        .unwrap();
    };
    put("aa", b"{\"n\":1}", 100);
    put("bb", b"{\"n\":2}", 200);
    assert_eq!(
        key(&c),
        Some((
            "bb".into(),
            202,
            "application/json".into(),
            b"{\"n\":2}".to_vec(),
            200
        ))
    );
    let insert = |id: &str| {
        c.execute(
            statements::INSERT_MESSAGE,
            params![id, "t", "https://h.example/", 10],
        )
    };
    insert("msg_1").unwrap();
    insert("msg_2").unwrap();
    assert!(insert("msg_1").is_err(), "a message id is recorded once");
    c.execute(statements::FORGET_KEY, []).unwrap();
    assert_eq!(key(&c), None);
    let kept: i64 = c
        .query_row("SELECT count(*) FROM messages", [], |r| r.get(0))
        .unwrap();
    assert_eq!(kept, 2);
}
