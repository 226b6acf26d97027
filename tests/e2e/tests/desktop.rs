//! The real desktop app under Xvfb, driven through WebDriver. Ignored by a plain
//! `cargo test` (they need a display and a built app); the test script runs them
//! with `xvfb-run -a cargo nextest run --workspace --run-ignored only`.
#![allow(clippy::unwrap_used, clippy::expect_used)]

use std::io::{BufRead, BufReader};
use std::process::{Command, Stdio};
use std::time::Duration;

use anyhow::{Context, Result, bail};
use fantoccini::Locator;
use quire_e2e::{App, ModelServer, eventually, folder_of_papers, repo_root};
use serde_json::{Value, json};

const UI_TIMEOUT: Duration = Duration::from_secs(30);

async fn assert_first_screen(app: &App) -> Result<()> {
    let url = app.client.current_url().await?;
    assert!(
        !url.as_str().contains("localhost:5173"),
        "the app binary is a dev build that loads the Vite server ({url}); rebuild it with cargo build"
    );
    let empty = app
        .wait_text("[data-testid=recent-empty]", UI_TIMEOUT)
        .await?;
    assert!(empty.contains("No reviews yet"), "{empty}");
    let zone = app.wait_text("[data-testid=dropzone]", UI_TIMEOUT).await?;
    assert!(
        zone.contains("Drop a folder of PDFs") && zone.contains("Open folder"),
        "{zone}"
    );
    Ok(())
}

/// The app on its first screen, and a folder of `count` papers of `topic` with its name.
async fn start_with_papers(topic: &str, count: usize) -> Result<(App, tempfile::TempDir, String)> {
    let app = App::start().await?;
    assert_first_screen(&app).await?;
    let papers = folder_of_papers(topic, count)?;
    let title = papers
        .path()
        .file_name()
        .unwrap()
        .to_string_lossy()
        .into_owned();
    Ok((app, papers, title))
}

async fn wait_for_listed(app: &App, title: &str, papers: &str) -> Result<()> {
    let listed = app
        .wait_text("[data-testid=recent-item]", UI_TIMEOUT)
        .await?;
    assert!(
        listed.contains(title),
        "list shows {listed:?}, expected {title}"
    );
    assert!(
        listed.contains(papers),
        "list shows {listed:?}, expected {papers}"
    );
    assert_eq!(app.texts("[data-testid=recent-item]").await?.len(), 1);
    Ok(())
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn opening_a_folder_through_the_drop_command_lists_the_new_workspace() -> Result<()> {
    let (app, papers, title) = start_with_papers("databases", 3).await?;

    // The exact IPC call the drop handler and the dialog make.
    let script = r#"
        const [folder, done] = arguments;
        window.__TAURI_INTERNALS__
            .invoke("workspace_create", { params: { folder } })
            .then((ok) => done({ ok }), (err) => done({ err }));
    "#;
    let reply = app
        .client
        .execute_async(script, vec![json!(papers.path())])
        .await?;
    let summary = reply
        .get("ok")
        .with_context(|| format!("workspace_create failed: {reply}"))?;
    assert_eq!(summary["paperCount"], 3);
    assert_eq!(summary["title"], Value::String(title.clone()));
    let root = summary["root"].as_str().unwrap();
    assert!(
        root.starts_with(&app.data_dir.path().to_string_lossy().into_owned()),
        "{root}"
    );

    wait_for_listed(&app, &title, "3 papers").await?;

    // A bad path comes back as a structured error the UI can show.
    let reply = app
        .client
        .execute_async(script, vec![json!("/no/such/folder")])
        .await?;
    assert_eq!(reply["err"]["kind"], "not_found", "{reply}");
    assert_eq!(reply["err"]["code"], "folder_not_found", "{reply}");
    app.stop().await
}

/// Window geometry (x, y, width, height) of the first window whose name matches.
fn window_geometry(name_regex: &str) -> Result<(i64, i64, i64, i64)> {
    let out = Command::new("xdotool")
        .args(["search", "--sync", "--onlyvisible", "--name", name_regex])
        .output()?;
    let id = String::from_utf8_lossy(&out.stdout)
        .lines()
        .next()
        .map(str::to_owned);
    let id = id.with_context(|| format!("no visible window named {name_regex}"))?;
    let out = Command::new("xdotool")
        .args(["getwindowgeometry", "--shell", &id])
        .output()?;
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |key: &str| -> Result<i64> {
        text.lines()
            .find_map(|l| l.strip_prefix(&format!("{key}=")))
            .with_context(|| format!("no {key} in {text}"))?
            .parse()
            .context("bad geometry number")
    };
    Ok((field("X")?, field("Y")?, field("WIDTH")?, field("HEIGHT")?))
}

fn xdotool(args: &[&str]) -> Result<()> {
    let status = Command::new("xdotool").args(args).status()?;
    if !status.success() {
        bail!("xdotool {args:?} failed");
    }
    Ok(())
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn a_folder_dragged_in_from_another_application_is_opened() -> Result<()> {
    let (app, papers, title) = start_with_papers("machine-learning", 2).await?;

    // A real XDND drag source (a GTK window offering text/uri-list), well away
    // from the drop zone.
    let tool = repo_root().join("../shared/tools/xdnd-drag-source.py");
    let mut source = Command::new("/usr/bin/python3")
        .arg(&tool)
        .arg(papers.path())
        .env("DND_X", "1040")
        .env("DND_Y", "690")
        .stdout(Stdio::piped())
        .stderr(Stdio::null())
        .spawn()
        .context("cannot start the XDND drag source")?;
    let mut ready = String::new();
    BufReader::new(source.stdout.take().unwrap()).read_line(&mut ready)?;
    assert_eq!(ready.trim(), "ready");

    let (sx, sy, sw, sh) = window_geometry("^dnd-source$")?;
    let (wx, wy, _, _) = window_geometry("^Quire$")?;
    let zone = app
        .client
        .find(Locator::Css("[data-testid=dropzone]"))
        .await?;
    let (zx, zy, zw, zh) = zone.rectangle().await?;
    let (from_x, from_y) = (sx + sw / 2, sy + sh / 2);
    let (to_x, to_y) = (wx + (zx + zw / 2.0) as i64, wy + (zy + zh / 2.0) as i64);

    // The gesture: press on the source, travel in small steps (XDND needs motion
    // events over the target), release over the drop zone.
    xdotool(&[
        "mousemove",
        "--sync",
        &from_x.to_string(),
        &from_y.to_string(),
    ])?;
    xdotool(&["mousedown", "1"])?;
    const STEPS: i64 = 25;
    for step in 1..=STEPS {
        let x = from_x + (to_x - from_x) * step / STEPS;
        let y = from_y + (to_y - from_y) * step / STEPS;
        xdotool(&["mousemove", &x.to_string(), &y.to_string()])?;
        tokio::time::sleep(Duration::from_millis(20)).await;
    }
    xdotool(&["mouseup", "1"])?;

    // The drop opens the folder as a new review, listing its files.
    let opened = app
        .wait_text("[data-testid=review-title]", UI_TIMEOUT)
        .await;
    let _ = source.kill();
    let _ = source.wait();
    assert_eq!(opened?, title);
    let files = eventually("the files to be listed", UI_TIMEOUT, || async {
        let files = app.texts("[data-testid=file]").await?;
        let ready = files.len() == 2 && files.iter().all(|f| f.contains("Readable"));
        Ok(ready.then_some(files))
    })
    .await?;
    assert!(files.iter().all(|f| f.contains("pages")), "{files:?}");
    app.click("[data-testid=back]").await?;
    wait_for_listed(&app, &title, "2 papers").await?;
    app.stop().await
}

#[tokio::test]
#[ignore = "needs a display and the built app; run by the test script under xvfb-run"]
async fn a_local_model_server_is_found_saved_as_a_profile_and_tested() -> Result<()> {
    let server = ModelServer::start(&["qwen3:8b"], &[])?;
    let ollama_root = server.base_url.trim_end_matches("/v1").to_owned();
    let app = App::start_with(&[("QUIRE_OLLAMA_URL", &ollama_root)]).await?;
    assert_first_screen(&app).await?;

    let button = "[data-testid=model-button]";
    let found = eventually("the local model to be found", UI_TIMEOUT, || async {
        let text = app.text_content(button).await?.unwrap_or_default();
        Ok(text.contains("qwen3:8b").then_some(text))
    })
    .await
    .context("the top bar never named the local model")?;
    assert_eq!(found, "qwen3:8b · Ollama, found on this computer");

    app.client.find(Locator::Css(button)).await?.click().await?;
    app.client
        .find(Locator::Css(
            "[data-testid=model-panel] button[type=submit]",
        ))
        .await?
        .click()
        .await?;
    let check = app
        .wait_text("[data-testid=model-check]", UI_TIMEOUT)
        .await?;
    assert_eq!(check, format!("Connected to {}: 1 model.", server.base_url));
    assert_eq!(
        app.text_content(button).await?.as_deref(),
        Some("qwen3:8b · default")
    );

    let saved = std::fs::read_to_string(app.data_dir.path().join("config/models.toml"))?;
    assert!(
        saved.contains(&format!("base_url = \"{}\"", server.base_url)),
        "{saved}"
    );
    assert!(saved.contains("stream_tool_turns = false"), "{saved}");

    // A second replica of the model and a server of another model, as a
    // pool: the test asks each what it serves.
    let replica = ModelServer::start(&["qwen3:8b"], &[])?;
    let other = ModelServer::start(&["llama3.2:3b"], &[])?;
    for (row, server) in [&replica, &other].into_iter().enumerate() {
        app.click("[data-testid=pool-add]").await?;
        app.type_into(&format!("[name=pool_url_{row}]"), &server.base_url)
            .await?;
    }
    app.type_into("[name=pool_concurrency_0]", "8").await?;
    app.click("[data-testid=model-panel] button[type=submit]")
        .await?;
    let pool = app
        .wait_text("[data-testid=pool-check]", UI_TIMEOUT)
        .await?;
    assert!(
        pool.starts_with("2 of 3 servers serve this model."),
        "{pool}"
    );
    assert!(
        pool.contains(&format!(
            "{}: left out of reviews: it serves llama3.2:3b, not qwen3:8b",
            other.base_url
        )),
        "{pool}"
    );
    app.client
        .execute(
            "document.querySelector('[data-testid=pool-check]').scrollIntoView({block: 'end'});",
            vec![],
        )
        .await?;
    app.screenshot("model-pool").await?;
    let saved = std::fs::read_to_string(app.data_dir.path().join("config/models.toml"))?;
    assert!(
        saved.contains(&replica.base_url) && saved.contains("concurrency = 8"),
        "{saved}"
    );
    app.stop().await
}
