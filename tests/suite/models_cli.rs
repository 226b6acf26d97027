//! `quire models`, `quire key` and `quire ask` as a user runs them, against the
//! scripted model server: settings from models.toml, keys from the environment
//! or the 0600 key file, Ollama found without settings, and no key anywhere in
//! the logs (at trace level), the workspace, the index or the output.

use std::os::unix::fs::PermissionsExt;
use std::path::Path;
use std::process::Output;

use testkit::{ScriptedServer, ServerOptions};

use super::support::{every_file, quire_bin};

async fn quire(
    args: &[&str],
    config: &Path,
    data: &Path,
    envs: &[(&str, &str)],
    stdin: Option<&str>,
) -> Output {
    use tokio::io::AsyncWriteExt;
    let mut command = tokio::process::Command::new(quire_bin());
    command
        .args(args)
        .env("QUIRE_CONFIG_DIR", config)
        .env("QUIRE_DATA_DIR", data)
        .env("QUIRE_SECRET_STORE", "file")
        .env("QUIRE_OLLAMA_URL", "http://127.0.0.1:9")
        .env_remove("QUIRE_LOG")
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (k, v) in envs {
        command.env(k, v);
    }
    let mut child = command.spawn().unwrap();
    let mut input = child.stdin.take().unwrap();
    if let Some(text) = stdin {
        input.write_all(text.as_bytes()).await.unwrap();
    }
    drop(input);
    child.wait_with_output().await.unwrap()
}

fn text(out: &Output) -> (String, String) {
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A scripted server that wants a key made up for this test, and config and
/// data folders whose `models.toml` has one profile pointing at it.
struct Keyed {
    key: String,
    server: ScriptedServer,
    config: tempfile::TempDir,
    data: tempfile::TempDir,
}

async fn keyed(label: &str, profile: &str, extra: &str) -> Keyed {
    let key = format!("sk-{label}-{}", uuid::Uuid::new_v4().simple());
    let server = ScriptedServer::start(ServerOptions {
        api_key: Some(key.clone()),
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    std::fs::write(
        config.path().join("models.toml"),
        format!(
            "[profiles.{profile}]\nbase_url = \"{}\"\nmodel = \"scripted-reader\"\n{extra}",
            server.base_url()
        ),
    )
    .unwrap();
    Keyed {
        key,
        server,
        config,
        data: tempfile::tempdir().unwrap(),
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_review_workspace_the_logs_and_the_index_never_hold_the_key() {
    let Keyed {
        key,
        server: _server,
        config,
        data,
    } = keyed("leakcheck", "scripted", "api_key_env = \"SCRIPTED_KEY\"\n").await;
    let papers = tempfile::tempdir().unwrap();
    let created = quire(
        &[
            "workspace",
            "create",
            papers.path().to_str().unwrap(),
            "--json",
        ],
        config.path(),
        data.path(),
        &[],
        None,
    )
    .await;
    assert!(created.status.success(), "{:?}", text(&created));
    let root: serde_json::Value = serde_json::from_slice(&created.stdout).unwrap();
    let root = root["root"].as_str().unwrap().to_owned();

    let envs = [("SCRIPTED_KEY", key.as_str()), ("QUIRE_LOG", "trace")];
    let prompt = "Question: learned index structures\n=== page 1 ===\nLearned index structures replace B-trees with models of the data.";
    let asked = quire(
        &["ask", prompt, "--workspace", &root],
        config.path(),
        data.path(),
        &envs,
        None,
    )
    .await;
    let (stdout, stderr) = text(&asked);
    assert!(asked.status.success(), "{stderr}");
    let answer: serde_json::Value = serde_json::from_str(stdout.trim()).unwrap();
    assert_eq!(
        answer["quotes"][0]["page"], 1,
        "the reader answered from the page: {stdout}"
    );
    assert!(stderr.contains("model call"), "trace logging was on");

    let listed = quire(
        &["models", "--json"],
        config.path(),
        data.path(),
        &envs,
        None,
    )
    .await;
    let (list_out, list_err) = text(&listed);
    assert!(listed.status.success(), "{list_err}");
    assert!(list_out.contains("environment variable SCRIPTED_KEY"));

    for (what, output) in [
        ("ask stdout", &stdout),
        ("ask log", &stderr),
        ("models", &list_out),
        ("models log", &list_err),
    ] {
        assert!(!output.contains(&key), "the key leaked into {what}");
    }
    let files = every_file(data.path());
    assert!(files.iter().any(|f| f.ends_with("model-calls.jsonl")));
    assert!(files.iter().any(|f| f.ends_with("index.sqlite3")));
    for file in files {
        let bytes = std::fs::read(&file).unwrap();
        assert!(
            !String::from_utf8_lossy(&bytes).contains(&key),
            "the key leaked into {}",
            file.display()
        );
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stored_key_lives_in_a_private_file_and_is_used() {
    let Keyed {
        key,
        server: _server,
        config,
        data,
    } = keyed("stored", "remote", "").await;
    let before = quire(&["ask", "hello"], config.path(), data.path(), &[], None).await;
    assert!(!before.status.success());
    assert!(
        text(&before).1.contains("error[auth]"),
        "{:?}",
        text(&before)
    );

    let set = quire(
        &["key", "set", "remote"],
        config.path(),
        data.path(),
        &[],
        Some(&format!("{key}\n")),
    )
    .await;
    assert!(set.status.success(), "{:?}", text(&set));
    let file = config.path().join("keys.toml");
    assert_eq!(
        std::fs::metadata(&file).unwrap().permissions().mode() & 0o777,
        0o600
    );
    assert!(!text(&set).0.contains(&key) && !text(&set).1.contains(&key));

    let after = quire(&["ask", "hello"], config.path(), data.path(), &[], None).await;
    assert!(after.status.success(), "{:?}", text(&after));

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o644)).unwrap();
    let exposed = quire(&["ask", "hello"], config.path(), data.path(), &[], None).await;
    let (_, err) = text(&exposed);
    assert!(
        !exposed.status.success() && err.contains("chmod 600"),
        "{err}"
    );
    assert!(!err.contains(&key));

    std::fs::set_permissions(&file, std::fs::Permissions::from_mode(0o600)).unwrap();
    let deleted = quire(
        &["key", "delete", "remote"],
        config.path(),
        data.path(),
        &[],
        None,
    )
    .await;
    assert!(text(&deleted).0.contains("deleted"));
    assert!(!std::fs::read_to_string(&file).unwrap().contains(&key));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_no_settings_a_local_ollama_is_found_and_listed() {
    let server = ScriptedServer::start(ServerOptions {
        models: vec!["qwen3:8b".into(), "llama3.2:3b".into()],
        ..ServerOptions::default()
    })
    .await
    .unwrap();
    let config = tempfile::tempdir().unwrap();
    let data = tempfile::tempdir().unwrap();
    let ollama = server.root_url();
    let listed = quire(
        &["models"],
        config.path(),
        data.path(),
        &[("QUIRE_OLLAMA_URL", &ollama)],
        None,
    )
    .await;
    let (out, err) = text(&listed);
    assert!(listed.status.success(), "{err}");
    assert!(
        out.contains("profile ollama") && out.contains("qwen3:8b") && out.contains("llama3.2:3b"),
        "{out}"
    );

    let nothing = quire(&["models"], config.path(), data.path(), &[], None).await;
    let (_, err) = text(&nothing);
    assert!(!nothing.status.success());
    assert!(
        err.contains("error[no_model_configured]") && err.contains("models.toml"),
        "{err}"
    );
}

/// With a Secret Service running (gnome-keyring inside its own D-Bus session
/// and home folder), `quire key set` stores the key there, not in a file, and
/// `quire ask` reads it back from there.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn with_a_secret_service_the_key_lives_there_and_not_in_a_file() {
    let Keyed {
        key,
        server,
        config,
        data,
    } = keyed("keyring", "remote", "").await;
    let home = tempfile::tempdir().unwrap();
    // The daemon creates and unlocks a login keyring with this password; wait
    // for its file rather than for a fixed time.
    let script = r#"
        set -e
        printf quire-test | gnome-keyring-daemon --unlock --components=secrets >/dev/null
        for _ in $(seq 100); do [ -e "$HOME/.local/share/keyrings/login.keyring" ] && break; sleep 0.1; done
        printf '%s\n' "$KEY" | "$QUIRE" key set remote
        if [ -e "$QUIRE_CONFIG_DIR/keys.toml" ]; then echo "key file written"; exit 3; fi
        "$QUIRE" ask hello
        "$QUIRE" key delete remote
        if "$QUIRE" ask hello 2>/dev/null; then echo "key still there"; exit 4; fi
    "#;
    let out = tokio::process::Command::new("dbus-run-session")
        .args(["--", "sh", "-c", script])
        .env("HOME", home.path())
        .env("KEY", &key)
        .env("QUIRE", quire_bin())
        .env("QUIRE_CONFIG_DIR", config.path())
        .env("QUIRE_DATA_DIR", data.path())
        .env("QUIRE_OLLAMA_URL", "http://127.0.0.1:9")
        .env_remove("QUIRE_SECRET_STORE")
        .env_remove("DBUS_SESSION_BUS_ADDRESS")
        .output()
        .await
        .expect(
            "dbus-run-session (apt: dbus-daemon) and gnome-keyring are installed by scripts/setup",
        );
    let (stdout, stderr) = text(&out);
    assert!(out.status.success(), "stdout: {stdout}\nstderr: {stderr}");
    assert!(stdout.contains("stored in the OS secret store"), "{stdout}");
    assert!(stdout.contains("deleted"), "{stdout}");
    assert!(!stdout.contains(&key) && !stderr.contains(&key));
    assert_eq!(
        server.requests().len(),
        1,
        "only the call carrying the stored key got through"
    );
}
