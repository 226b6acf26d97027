//! Harness for driving the real Quire desktop app: start `tauri-driver` on free
//! ports with the app under it, connect a WebDriver session, wait for things to
//! appear, and clean up (SIGTERM, so WebKitWebDriver exits with it). The tests
//! need a display (run them under `xvfb-run`) and a built app
//! (`target/debug/quire-desktop`, or `QUIRE_APP_BIN`).
#![allow(clippy::print_stderr)]

use std::io::{BufRead, BufReader};
use std::net::{TcpListener, TcpStream};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use anyhow::{Context, Result, bail};
use fantoccini::{Client, ClientBuilder, Locator};
use hyper_util::client::legacy::connect::HttpConnector;

/// The repository root.
pub fn repo_root() -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR")).join("../..")
}

/// The shared corpus next to the repository.
pub fn corpus() -> PathBuf {
    repo_root().join("../shared/corpus")
}

pub fn app_binary() -> Result<PathBuf> {
    let path = std::env::var_os("QUIRE_APP_BIN")
        .map(PathBuf::from)
        .unwrap_or_else(|| repo_root().join("target/debug/quire-desktop"));
    if !path.is_file() {
        bail!(
            "no app binary at {}: build it first (cargo build --workspace)",
            path.display()
        );
    }
    Ok(path.canonicalize()?)
}

fn free_port() -> Result<u16> {
    Ok(TcpListener::bind("127.0.0.1:0")?.local_addr()?.port())
}

/// Poll `check` until it succeeds or `timeout` passes.
pub async fn eventually<T, F, Fut>(what: &str, timeout: Duration, mut check: F) -> Result<T>
where
    F: FnMut() -> Fut,
    Fut: std::future::Future<Output = Result<Option<T>>>,
{
    let deadline = Instant::now() + timeout;
    loop {
        if let Some(value) = check().await? {
            return Ok(value);
        }
        if Instant::now() > deadline {
            bail!("timed out after {timeout:?} waiting for {what}");
        }
        tokio::time::sleep(Duration::from_millis(100)).await;
    }
}

/// A running app under tauri-driver, with its own data folder.
pub struct App {
    pub client: Client,
    pub data_dir: tempfile::TempDir,
    driver: Child,
}

impl App {
    pub async fn start() -> Result<Self> {
        Self::start_with(&[]).await
    }

    /// Start with extra environment variables for the app.
    pub async fn start_with(env: &[(&str, &str)]) -> Result<Self> {
        Self::start_in(tempfile::tempdir()?, env).await
    }

    /// Start on a data folder prepared beforehand (workspaces, settings).
    pub async fn start_in(data_dir: tempfile::TempDir, env: &[(&str, &str)]) -> Result<Self> {
        let binary = app_binary()?;
        let port = free_port()?;
        let native_port = free_port()?;
        let driver = Command::new("tauri-driver")
            .args([
                "--port",
                &port.to_string(),
                "--native-port",
                &native_port.to_string(),
            ])
            // The app inherits these through tauri-driver and WebKitWebDriver:
            // its own data and settings, keys in a file, no real Ollama.
            .env("QUIRE_DATA_DIR", data_dir.path())
            // Hermetic: no lookups in the scholarly indexes.
            .env("QUIRE_OFFLINE", "1")
            .env("QUIRE_CONFIG_DIR", data_dir.path().join("config"))
            .env("QUIRE_SECRET_STORE", "file")
            .env("QUIRE_OLLAMA_URL", "http://127.0.0.1:9")
            .envs(env.iter().copied())
            .stdout(Stdio::null())
            .stderr(Stdio::inherit())
            .spawn()
            .context(
                "cannot start tauri-driver (install it: cargo install tauri-driver --locked)",
            )?;
        let mut app = AppGuard {
            driver: Some(driver),
        };
        eventually(
            "tauri-driver to listen",
            Duration::from_secs(20),
            || async { Ok(TcpStream::connect(("127.0.0.1", port)).ok().map(|_| ())) },
        )
        .await?;
        let mut caps = serde_json::Map::new();
        caps.insert("browserName".into(), "wry".into());
        caps.insert(
            "tauri:options".into(),
            serde_json::json!({ "application": binary.to_string_lossy() }),
        );
        // The driver accepts connections a moment before WebKitWebDriver can start
        // a session; a refused first session is retried, not reported.
        let mut attempt = 0;
        let client = loop {
            attempt += 1;
            let connected = ClientBuilder::new(HttpConnector::new())
                .capabilities(caps.clone())
                .connect(&format!("http://127.0.0.1:{port}"))
                .await;
            match connected {
                Ok(client) => break client,
                Err(e) if attempt < 3 => {
                    eprintln!("WebDriver session attempt {attempt} failed ({e}); retrying");
                    tokio::time::sleep(Duration::from_secs(1)).await;
                }
                Err(e) => return Err(e).context("cannot open a WebDriver session with the app"),
            }
        };
        let driver = app.driver.take().context("driver vanished")?;
        Ok(Self {
            client,
            data_dir,
            driver,
        })
    }

    /// Wait until an element matching `css` exists and return its text.
    pub async fn wait_text(&self, css: &str, timeout: Duration) -> Result<String> {
        eventually(css, timeout, || async {
            match self.client.find(Locator::Css(css)).await {
                Ok(element) => Ok(Some(element.text().await?)),
                Err(_) => Ok(None),
            }
        })
        .await
    }

    /// The DOM text of the first element matching `css`, rendered or not (a
    /// WebDriver "text" is empty for elements it deems not displayed).
    pub async fn text_content(&self, css: &str) -> Result<Option<String>> {
        let value = self
            .client
            .execute(
                "const e = document.querySelector(arguments[0]); return e === null ? null : e.textContent;",
                vec![serde_json::json!(css)],
            )
            .await?;
        Ok(value.as_str().map(str::to_owned))
    }

    /// The DOM text of every element matching `css`, in document order
    /// (unlike WebDriver's text, it keeps text cut off by an ellipsis).
    pub async fn text_contents(&self, css: &str) -> Result<Vec<String>> {
        let value = self
            .client
            .execute(
                "return [...document.querySelectorAll(arguments[0])].map((e) => e.textContent);",
                vec![serde_json::json!(css)],
            )
            .await?;
        Ok(value
            .as_array()
            .map(|items| {
                items
                    .iter()
                    .filter_map(|v| v.as_str().map(str::to_owned))
                    .collect()
            })
            .unwrap_or_default())
    }

    /// Texts of every element matching `css` (possibly none).
    pub async fn texts(&self, css: &str) -> Result<Vec<String>> {
        let mut out = Vec::new();
        for element in self.client.find_all(Locator::Css(css)).await? {
            out.push(element.text().await?);
        }
        Ok(out)
    }

    /// Call one of the app's commands exactly as the UI does (the drop
    /// handler and the dialogs end in these calls); `Err` holds the
    /// command's `{kind, code, message}`.
    pub async fn invoke(
        &self,
        command: &str,
        args: serde_json::Value,
    ) -> Result<std::result::Result<serde_json::Value, serde_json::Value>> {
        let script = r#"
            const [command, args, done] = arguments;
            window.__TAURI_INTERNALS__
                .invoke(command, args)
                .then((ok) => done({ ok }), (err) => done({ err }));
        "#;
        let reply = self
            .client
            .execute_async(script, vec![serde_json::json!(command), args])
            .await?;
        Ok(match (reply.get("ok"), reply.get("err")) {
            (Some(ok), _) => Ok(ok.clone()),
            (_, Some(err)) => Err(err.clone()),
            _ => Err(reply),
        })
    }

    pub async fn click(&self, css: &str) -> Result<()> {
        let element = eventually(css, Duration::from_secs(30), || async {
            Ok(self.client.find(Locator::Css(css)).await.ok())
        })
        .await?;
        element
            .click()
            .await
            .with_context(|| format!("clicking {css}"))
    }

    pub async fn type_into(&self, css: &str, text: &str) -> Result<()> {
        let element = self.client.find(Locator::Css(css)).await?;
        element
            .send_keys(text)
            .await
            .with_context(|| format!("typing into {css}"))
    }

    /// Replace what a text field holds with `text`, by keys as a person
    /// would (backspaces, then the text), so the page sees every input.
    pub async fn retype(&self, css: &str, text: &str) -> Result<()> {
        let element = self.client.find(Locator::Css(css)).await?;
        let held = element.prop("value").await?.unwrap_or_default();
        let erase = "\u{E003}".repeat(held.chars().count());
        element
            .send_keys(&format!("{erase}{text}"))
            .await
            .with_context(|| format!("retyping {css}"))
    }

    /// Save screenshots of the window in the light and the dark theme as
    /// `<name>.png` and `<name>-dark.png` in `$QUIRE_SCREENSHOTS`, when that is
    /// set (the docs' screenshots come from here).
    pub async fn screenshot(&self, name: &str) -> Result<()> {
        let Some(dir) = std::env::var_os("QUIRE_SCREENSHOTS") else {
            return Ok(());
        };
        std::fs::create_dir_all(&dir)?;
        let set_theme = "const before = document.documentElement.dataset.theme; \
             document.documentElement.dataset.theme = arguments[0]; return before;";
        let before = self
            .client
            .execute(set_theme, vec![serde_json::json!("light")])
            .await?;
        for (theme, file) in [
            ("light", format!("{name}.png")),
            ("dark", format!("{name}-dark.png")),
        ] {
            self.client
                .execute(set_theme, vec![serde_json::json!(theme)])
                .await?;
            tokio::time::sleep(Duration::from_millis(150)).await; // let it repaint
            // WebKit's automation takes the shot at the page's next
            // presentation; without accelerated compositing (the app's mode
            // on a machine without a GPU) a still page never presents again
            // and the shot waits for ever. An invisible pixel that changes
            // every frame keeps frames coming while it is taken.
            self.client
                .execute(
                    "const tick = document.createElement('div'); tick.id = 'screenshot-tick'; \
                     tick.style.cssText = 'position:fixed;right:0;bottom:0;width:1px;height:1px;pointer-events:none;opacity:0'; \
                     document.body.appendChild(tick); let on = false; \
                     const flip = () => { if (!tick.isConnected) return; on = !on; tick.style.opacity = on ? '0.01' : '0'; requestAnimationFrame(flip); }; \
                     requestAnimationFrame(flip);",
                    vec![],
                )
                .await?;
            let png = self.client.screenshot().await;
            self.client
                .execute(
                    "document.getElementById('screenshot-tick')?.remove();",
                    vec![],
                )
                .await?;
            let png = png?;
            std::fs::write(PathBuf::from(&dir).join(file), png)?;
        }
        self.client.execute(set_theme, vec![before]).await?;
        Ok(())
    }

    /// End the session and stop the driver politely (SIGTERM lets it stop
    /// WebKitWebDriver and the app too).
    pub async fn stop(mut self) -> Result<()> {
        let closed = self.client.clone().close().await;
        terminate(&mut self.driver);
        closed.context("closing the WebDriver session")
    }
}

impl Drop for App {
    fn drop(&mut self) {
        terminate(&mut self.driver);
    }
}

/// Stops tauri-driver if `App::start` fails half-way.
struct AppGuard {
    driver: Option<Child>,
}

impl Drop for AppGuard {
    fn drop(&mut self) {
        if let Some(driver) = self.driver.as_mut() {
            terminate(driver);
        }
    }
}

fn terminate(child: &mut Child) {
    if let Ok(Some(_)) = child.try_wait() {
        return;
    }
    let _ = Command::new("kill")
        .args(["-TERM", &child.id().to_string()])
        .status();
    let deadline = Instant::now() + Duration::from_secs(5);
    while Instant::now() < deadline {
        if let Ok(Some(_)) = child.try_wait() {
            return;
        }
        std::thread::sleep(Duration::from_millis(50));
    }
    eprintln!("tauri-driver ignored SIGTERM; killing it");
    let _ = child.kill();
    let _ = child.wait();
}

/// Kill every process of the app binary (the app and its extraction
/// workers) with SIGKILL, as a crash would end them, and wait until they are gone.
pub async fn crash_app() -> Result<()> {
    signal_app("KILL", Duration::from_secs(10), None).await
}

/// Ask the app running on the data folder `data` (and the workers it
/// started) to quit, as a logout or `kill` does (SIGTERM), and wait up to
/// `within` for them to be gone. Other apps, an earlier test's that is still
/// closing, are left alone.
pub async fn terminate_app(data: &Path, within: Duration) -> Result<()> {
    signal_app("TERM", within, Some(data)).await
}

async fn signal_app(signal: &str, within: Duration, data: Option<&Path>) -> Result<()> {
    let binary = app_binary()?;
    let on_data = |pid: &Path| {
        let Some(data) = data else { return true };
        let wanted = format!("QUIRE_DATA_DIR={}", data.display());
        std::fs::read(pid.join("environ")).is_ok_and(|environ| {
            environ
                .split(|b| *b == 0)
                .any(|var| var == wanted.as_bytes())
        })
    };
    let left = || -> Vec<u32> {
        let Ok(entries) = std::fs::read_dir("/proc") else {
            return Vec::new();
        };
        entries
            .filter_map(|e| e.ok())
            .filter_map(|e| {
                let pid = e.file_name().to_string_lossy().parse::<u32>().ok()?;
                let exe = std::fs::read_link(e.path().join("exe")).ok()?;
                (exe == binary && on_data(&e.path())).then_some(pid)
            })
            .collect()
    };
    for pid in left() {
        let _ = Command::new("kill")
            .args([&format!("-{signal}"), &pid.to_string()])
            .status();
    }
    eventually("the app to be gone", within, || async {
        Ok(left().is_empty().then_some(()))
    })
    .await
}

/// A temp folder holding copies of the first `count` PDFs of a corpus topic.
/// Check the evidence quotes the pane shows (`“text”p. N`, as their
/// buttons read) against the paper whose first page bears `title`, in
/// `folder`, with a matcher apart from Quire's: poppler's text of the page,
/// letters and digits only ([`testkit::quote_match`]).
pub fn assert_quotes_on_their_pages(folder: &Path, title: &str, quotes: &[String]) -> Result<()> {
    use testkit::quote_match::{on_pdf_page, pdftotext_page, squeeze};
    let wanted: String = squeeze(title).chars().take(40).collect();
    let pdf = std::fs::read_dir(folder)?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .find(|p| {
            pdftotext_page(p, 1)
                .iter()
                .any(|t| squeeze(t).contains(&wanted))
        })
        .with_context(|| format!("no paper in {} has {title:?} on page one", folder.display()))?;
    for shown in quotes {
        let text = shown
            .split_once('“')
            .and_then(|(_, rest)| rest.rsplit_once('”'))
            .map(|(quote, _)| quote)
            .with_context(|| format!("no quoted text in {shown:?}"))?;
        let page: u32 = shown
            .rsplit("p. ")
            .next()
            .and_then(|p| p.trim().parse().ok())
            .with_context(|| format!("no page in {shown:?}"))?;
        anyhow::ensure!(
            on_pdf_page(text, &pdf, page),
            "{text:?} is not on page {page} of {}",
            pdf.display()
        );
    }
    Ok(())
}

pub fn folder_of_papers(topic: &str, count: usize) -> Result<tempfile::TempDir> {
    let dir = tempfile::Builder::new().prefix("e2e-papers-").tempdir()?;
    let mut pdfs: Vec<PathBuf> = std::fs::read_dir(corpus().join("dev").join(topic))?
        .filter_map(|e| e.ok().map(|e| e.path()))
        .filter(|p| p.extension().is_some_and(|e| e == "pdf"))
        .collect();
    pdfs.sort();
    for pdf in pdfs.iter().take(count) {
        let name = pdf.file_name().context("pdf without a name")?;
        std::fs::copy(pdf, dir.path().join(name))?;
    }
    Ok(dir)
}

impl App {
    /// Have the model draft the review's protocol and approve it as drafted;
    /// returns the protocol's status line.
    pub async fn approve_drafted_protocol(&self) -> Result<String> {
        self.click("[data-testid=protocol-draft]").await?;
        self.wait_text("[data-testid=protocol-approve]", Duration::from_secs(60))
            .await?;
        self.click("[data-testid=protocol-approve]").await?;
        self.protocol_approved().await
    }

    /// The protocol's status line once it says the protocol is approved.
    pub async fn protocol_approved(&self) -> Result<String> {
        eventually(
            "the protocol to be approved",
            Duration::from_secs(60),
            || async {
                if let Some(error) = self
                    .text_content("[data-testid=protocol] [role=alert]")
                    .await?
                {
                    anyhow::bail!("the protocol panel shows an error: {error}");
                }
                let status = self
                    .text_content("[data-testid=protocol-status]")
                    .await?
                    .unwrap_or_default();
                Ok(status.starts_with("Approved").then_some(status))
            },
        )
        .await
    }

    /// Once the PDF viewer has opened a page and marked a quote on it: the
    /// page line ("Page 3 of 12") and the marked text.
    pub async fn viewer_page_and_mark(&self) -> Result<(String, String)> {
        let timeout = Duration::from_secs(60);
        let page = eventually("the PDF to open", timeout, || async {
            if let Some(error) = self
                .text_content("[data-testid=pdf-viewer] [role=alert]")
                .await?
            {
                anyhow::bail!("the viewer failed: {error}");
            }
            let page = self
                .text_content("[data-testid=pdf-page]")
                .await?
                .unwrap_or_default();
            Ok(page.contains(" of ").then_some(page))
        })
        .await?;
        let marked = eventually("the quote to be marked", timeout, || async {
            let marks = self
                .text_contents("[data-testid=pdf-text] .pdf__mark")
                .await?;
            Ok((!marks.is_empty()).then_some(marks.concat()))
        })
        .await?;
        Ok((page, marked))
    }

    /// Choose `value` in the `<select>` matching `css`, as a person would
    /// (the change event fires).
    pub async fn select(&self, css: &str, value: &str) -> Result<()> {
        self.client
            .find(Locator::Css(css))
            .await?
            .select_by_value(value)
            .await
            .with_context(|| format!("choosing {value} in {css}"))
    }
}

/// Open `folder` (of `count` readable papers) as a workspace through the
/// command the drop and the dialog call, go to its review screen, and wait
/// until every file has its status; returns the workspace's root.
pub async fn open_folder_review(app: &App, folder: &Path, count: usize) -> Result<String> {
    let summary = app
        .invoke(
            "workspace_create",
            serde_json::json!({ "params": { "folder": folder } }),
        )
        .await?
        .map_err(|e| anyhow::anyhow!("workspace_create failed: {e}"))?;
    let root = summary["root"].as_str().context("no root")?.to_owned();
    app.click("[data-testid=recent-open]").await?;
    eventually(
        "every file to have a status",
        Duration::from_secs(60),
        || async {
            let files = app.texts("[data-testid=file]").await?;
            Ok(
                (files.len() == count && files.iter().all(|f| f.contains("Readable")))
                    .then_some(()),
            )
        },
    )
    .await?;
    Ok(root)
}

/// The scripted model server as a program, and the base URL it printed.
pub struct ModelServer {
    child: std::process::Child,
    pub base_url: String,
}

/// A config folder in `dir` whose `models.toml` has a profile per server:
/// `(name, server, model)`, the first the default.
pub fn profiles_in(dir: &Path, profiles: &[(&str, &ModelServer, &str)]) -> Result<PathBuf> {
    let config = dir.join("config");
    std::fs::create_dir_all(&config)?;
    let mut text = format!(
        "default = \"{}\"\n",
        profiles.first().map_or("scripted", |p| p.0)
    );
    for (name, server, model) in profiles {
        text.push_str(&format!(
            "\n[profiles.{name}]\nbase_url = \"{}\"\nmodel = \"{model}\"\n",
            server.base_url
        ));
    }
    std::fs::write(config.join("models.toml"), text)?;
    Ok(config)
}

impl ModelServer {
    /// Start it with these model ids and extra flags (`--latency-ms 200`).
    pub fn start(models: &[&str], flags: &[&str]) -> Result<Self> {
        let binary = repo_root().join("target/debug/scripted-model");
        let mut command = Command::new(&binary);
        command.args(["--port", "0"]);
        for model in models {
            command.args(["--model", model]);
        }
        command.args(flags);
        let mut child = command.stdout(Stdio::piped()).spawn().with_context(|| {
            format!(
                "cannot start {} (cargo build --workspace)",
                binary.display()
            )
        })?;
        let stdout = child.stdout.take().context("no stdout")?;
        let mut line = String::new();
        BufReader::new(stdout).read_line(&mut line)?;
        Ok(Self {
            child,
            base_url: line.trim().to_owned(),
        })
    }
}

impl ModelServer {
    /// A settings folder `dir/config` whose default model profile is this
    /// server (with `extra` TOML lines, e.g. `concurrency = 1`); returns it.
    pub fn profile_in(&self, dir: &Path, extra: &str) -> Result<PathBuf> {
        let config = dir.join("config");
        std::fs::create_dir_all(&config)?;
        std::fs::write(
            config.join("models.toml"),
            format!(
                "default = \"scripted\"\n\n[profiles.scripted]\nbase_url = \"{}\"\nmodel = \"scripted-reader\"\n{extra}\n",
                self.base_url
            ),
        )?;
        Ok(config)
    }
}

impl Drop for ModelServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
