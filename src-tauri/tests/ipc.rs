//! The desktop commands over real IPC on Tauri's mock runtime (no display): the
//! same request the web UI sends, through `configure`, as the real app uses it.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::path::Path;

use quire::commands::{AppContext, AppPaths};
use serde_json::{Value, json};
use tauri::ipc::{CallbackFn, InvokeBody};
use tauri::test::{INVOKE_KEY, get_ipc_response, mock_builder, mock_context, noop_assets};
use tauri::webview::InvokeRequest;
use tauri::{Listener, WebviewWindow, WebviewWindowBuilder};

fn app(
    data_dir: &Path,
) -> (
    tauri::App<tauri::test::MockRuntime>,
    WebviewWindow<tauri::test::MockRuntime>,
) {
    let app = quire_desktop::configure(mock_builder(), AppContext::new(AppPaths::new(data_dir)))
        .build(mock_context(noop_assets()))
        .unwrap();
    let window = WebviewWindowBuilder::new(&app, "main", Default::default())
        .build()
        .unwrap();
    (app, window)
}

fn invoke(
    window: &WebviewWindow<tauri::test::MockRuntime>,
    cmd: &str,
    body: Value,
) -> Result<Value, Value> {
    let request = InvokeRequest {
        cmd: cmd.into(),
        callback: CallbackFn(0),
        error: CallbackFn(1),
        url: "tauri://localhost".parse().unwrap(),
        body: InvokeBody::Json(body),
        headers: Default::default(),
        invoke_key: INVOKE_KEY.to_string(),
    };
    get_ipc_response(window, request).map(|body| body.deserialize::<Value>().unwrap())
}

fn paper_folder(count: usize) -> tempfile::TempDir {
    let dir = tempfile::tempdir().unwrap();
    let corpus = Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/corpus/dev/databases");
    let mut pdfs: Vec<_> = std::fs::read_dir(corpus)
        .unwrap()
        .map(|e| e.unwrap().path())
        .collect();
    pdfs.sort();
    for pdf in pdfs
        .iter()
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .take(count)
    {
        std::fs::copy(pdf, dir.path().join(pdf.file_name().unwrap())).unwrap();
    }
    dir
}

#[test]
fn workspace_create_over_ipc_creates_lists_and_announces_the_workspace() {
    let data = tempfile::tempdir().unwrap();
    let (app, window) = app(data.path());
    let announced = std::sync::Arc::new(std::sync::Mutex::new(Vec::<String>::new()));
    let sink = announced.clone();
    app.listen_any("workspaces-changed", move |event| {
        sink.lock().unwrap().push(event.payload().to_owned())
    });

    assert_eq!(
        invoke(&window, "workspace_list", json!({})).unwrap(),
        json!({"workspaces": [], "notice": null})
    );
    let folder = paper_folder(2);
    let created = invoke(
        &window,
        "workspace_create",
        json!({"params": {"folder": folder.path()}}),
    )
    .unwrap();
    assert_eq!(created["paperCount"], 2);
    assert_eq!(created["status"], "new");

    let list = invoke(&window, "workspace_list", json!({})).unwrap();
    assert_eq!(list["workspaces"].as_array().unwrap().len(), 1);
    assert_eq!(list["workspaces"][0]["id"], created["id"]);
    assert_eq!(*announced.lock().unwrap(), vec![created["id"].to_string()]);
}

#[test]
fn command_errors_cross_the_boundary_as_kind_code_and_message() {
    let data = tempfile::tempdir().unwrap();
    let (_app, window) = app(data.path());
    let err = invoke(
        &window,
        "workspace_create",
        json!({"params": {"folder": "/definitely/not/here"}}),
    )
    .unwrap_err();
    assert_eq!(err["kind"], "not_found");
    assert_eq!(err["code"], "folder_not_found");
    assert!(
        err["message"]
            .as_str()
            .unwrap()
            .contains("/definitely/not/here")
    );
    // Malformed arguments are refused by Tauri before reaching our code, without a panic.
    let err = invoke(&window, "workspace_create", json!({"params": {"wrong": 1}})).unwrap_err();
    assert!(err.to_string().contains("folder"), "{err}");
}

#[test]
fn a_model_profile_saved_over_ipc_becomes_the_active_model_without_exposing_its_key() {
    let data = tempfile::tempdir().unwrap();
    let (_app, window) = app(data.path());
    let key = format!("sk-ipc-{}", std::process::id());
    let bad = invoke(
        &window,
        "model_profile_save",
        json!({"params": {"name": "bad name!", "settings": {"model": "m"}}}),
    )
    .unwrap_err();
    assert_eq!(bad["kind"], "model_setup");
    assert_eq!(bad["code"], "model_settings_invalid");

    let setup = invoke(
        &window,
        "model_profile_save",
        json!({"params": {
            "name": "openai",
            "settings": {"base_url": "https://api.openai.com/v1", "model": "gpt-4o-mini", "context_window": 128000},
            "apiKey": key,
            "makeDefault": true
        }}),
    )
    .unwrap();
    assert_eq!(setup["active"]["model"], "gpt-4o-mini");
    assert_eq!(setup["defaultProfile"], "openai");
    assert_eq!(setup["profiles"][0]["settings"]["context_window"], 128000);
    assert!(setup["profiles"][0]["keySource"].is_string());
    assert!(
        !setup.to_string().contains(&key),
        "the key never crosses back"
    );

    let again = invoke(&window, "model_setup", json!({})).unwrap();
    assert_eq!(again["active"], setup["active"]);
    let toml = std::fs::read_to_string(data.path().join("config/models.toml")).unwrap();
    assert!(toml.contains("gpt-4o-mini") && !toml.contains(&key));
}

#[test]
fn the_review_commands_take_the_ui_s_arguments_and_answer_errors_as_kind_code_and_message() {
    let data = tempfile::tempdir().unwrap();
    let (_app, window) = app(data.path());
    let folder = paper_folder(2);
    let created = invoke(
        &window,
        "workspace_create",
        json!({"params": {"folder": folder.path()}}),
    )
    .unwrap();
    let root = created["root"].clone();

    let view = invoke(&window, "review_open", json!({"workspace": root})).unwrap();
    assert_eq!(view["state"], "new");
    assert_eq!(view["firstRows"]["rows"].as_array().unwrap().len(), 2);
    assert_eq!(view["firstRows"]["counts"]["pending"], 2);
    assert!(
        view["firstRows"]["rows"]
            .as_array()
            .unwrap()
            .iter()
            .all(|p| p["status"] == "pending")
    );
    let paper = view["firstRows"]["rows"][0]["id"].clone();
    invoke(&window, "review_warm", json!({"workspace": root})).unwrap();

    let missing = invoke(
        &window,
        "paper_detail",
        json!({"workspace": root, "paper": "no-such-paper"}),
    )
    .unwrap_err();
    assert_eq!(missing["kind"], "not_found");
    assert_eq!(missing["code"], "paper_not_found");
    let detail = invoke(
        &window,
        "paper_detail",
        json!({"workspace": root, "paper": paper}),
    )
    .unwrap();
    assert_eq!(detail["paper"]["id"], paper);
    assert!(detail["result"].is_null());

    let empty = invoke(
        &window,
        "paper_label",
        json!({"params": {"workspace": root, "paper": paper}}),
    )
    .unwrap_err();
    assert_eq!(empty["kind"], "invalid_input");
    assert_eq!(empty["code"], "empty_label");
    let label = invoke(
        &window,
        "paper_label",
        json!({"params": {"workspace": root, "paper": paper, "verdict": "maybe", "score": 6.5}}),
    )
    .unwrap();
    // The paper's row comes back as the review now shows it.
    assert_eq!(label["id"], paper);
    assert_eq!(label["label"]["verdict"], "maybe");
    // The table's next page, asked as the UI asks, has it.
    let labelled = invoke(
        &window,
        "review_rows",
        json!({"workspace": root, "query": {
            "text": "", "verdict": "any", "status": "any", "label": "labelled", "readers": "any",
            "minScore": 0, "fromYear": null, "zoteroTag": null, "sort": "score", "descending": true,
            "offset": 0, "limit": 100
        }}),
    )
    .unwrap();
    assert_eq!(
        (labelled["total"].clone(), labelled["matched"].clone()),
        (json!(2), json!(1))
    );
    assert_eq!(labelled["rows"][0]["id"], paper);
    let refused = invoke(
        &window,
        "review_rows",
        json!({"workspace": root, "query": {"sort": "relevance"}}),
    )
    .unwrap_err();
    // Refused by the arguments' own check, naming what it did not know.
    assert!(refused.to_string().contains("relevance"), "{refused}");
    assert_eq!(label["shownVerdict"], "maybe");
    assert_eq!(label["shownScore"], 6.5);
    let cleared = invoke(
        &window,
        "paper_label",
        json!({"params": {"workspace": root, "paper": paper, "clear": true}}),
    )
    .unwrap();
    assert!(cleared["label"].is_null());
    assert!(
        cleared["shownVerdict"].is_null(),
        "no result, no label: {cleared}"
    );

    let relative = invoke(
        &window,
        "review_export",
        json!({"workspace": root, "format": "markdown", "dest": "review.md"}),
    )
    .unwrap_err();
    assert_eq!(relative["kind"], "invalid_input");
    assert_eq!(relative["code"], "bad_path");
    let no_question = invoke(
        &window,
        "review_estimate",
        json!({"params": {"workspace": root, "question": " ", "engine": "agent"}}),
    )
    .unwrap_err();
    assert_eq!(no_question["kind"], "invalid_input");
    assert_eq!(no_question["code"], "empty_question");
    assert_eq!(
        invoke(&window, "review_cancel", json!({"workspace": root})).unwrap(),
        json!(false)
    );
}

#[test]
fn review_validation_takes_the_ui_s_params_and_refuses_a_review_not_yet_run() {
    let data = tempfile::tempdir().unwrap();
    let (_app, window) = app(data.path());
    let folder = paper_folder(1);
    let created = invoke(
        &window,
        "workspace_create",
        json!({"params": {"folder": folder.path()}}),
    )
    .unwrap();
    // The shape ValidationPanel sends (ValidateParams, generated).
    let refused = invoke(
        &window,
        "review_validation",
        json!({"params": {"workspace": created["root"], "apply": false, "reset": false}}),
    )
    .unwrap_err();
    assert_eq!(refused["kind"], "invalid_input");
    assert_eq!(refused["code"], "not_reviewed");
}

/// A command the window may not call answers "not allowed" in the real app
/// (the mock runtime above does not check capabilities): every command the
/// app registers is declared in `build.rs` and granted in the capability.
#[test]
fn every_registered_command_is_declared_and_granted_to_the_window() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR"));
    let read = |file: &str| std::fs::read_to_string(dir.join(file)).unwrap();
    let (lib, build, capability) = (
        read("src/lib.rs"),
        read("build.rs"),
        read("capabilities/default.json"),
    );
    let handler = lib
        .split("generate_handler![")
        .nth(1)
        .and_then(|rest| rest.split(']').next())
        .expect("the handler list");
    let registered: Vec<&str> = handler
        .split(',')
        .filter_map(|name| name.trim().strip_prefix("commands::"))
        .collect();
    assert!(registered.len() > 30, "{registered:?}");
    for name in registered {
        assert!(
            build.contains(&format!("\"{name}\"")),
            "{name} is not declared in build.rs"
        );
        let permission = format!("\"allow-{}\"", name.replace('_', "-"));
        assert!(
            capability.contains(&permission),
            "{name} is not granted in capabilities/default.json ({permission})"
        );
    }
}
