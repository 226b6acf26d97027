//! `quire agents` and `quire agent run` as a user runs them: the effective
//! agents of a workspace, and any agent run on any workspace against the
//! scripted model server.

use std::process::Output;

use testkit::{ScriptedServer, ServerOptions};

use super::support::{quire_command, scripted_config};

fn quire(args: &[&str], config: &std::path::Path, data: &std::path::Path) -> Output {
    quire_command(config, data).args(args).output().unwrap()
}

/// The JSON answer of a `quire agent run --json` that succeeded and finished.
fn finished(out: &Output) -> serde_json::Value {
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let response: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(response["status"], "finished", "{response}");
    response
}

#[test]
fn quire_agents_lists_the_builtins_and_a_workspaces_own() {
    let dir = tempfile::tempdir().unwrap();
    let ws = dir.path().join("ws");
    std::fs::create_dir_all(ws.join("agents")).unwrap();
    std::fs::write(ws.join("task.json"), "{\"format\":1,\"id\":\"w\",\"title\":\"w\",\"status\":\"new\",\"createdAt\":\"x\",\"updatedAt\":\"x\"}").unwrap();
    std::fs::write(
        ws.join("agents/critic.toml"),
        "name = \"critic\"\nlevel = 2\ndescription = \"Checks the synthesis.\"\nsystem_prompt = \"Check it.\"\ntools = [\"read_file\"]\n",
    )
    .unwrap();
    let out = quire(
        &["agents", "--json", "--workspace", ws.to_str().unwrap()],
        dir.path(),
        dir.path(),
    );
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let agents: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let names: Vec<&str> = agents
        .as_array()
        .unwrap()
        .iter()
        .map(|a| a["name"].as_str().unwrap())
        .collect();
    assert_eq!(names, ["critic", "planner", "reader", "reviewer", "writer"]);
    assert_eq!(agents[0]["source"], "agents/critic.toml");
    assert_eq!(agents[1]["level"], 3);

    // A spec that calls up is refused, naming the file and the field.
    std::fs::write(
        ws.join("agents/critic.toml"),
        "name = \"critic\"\nlevel = 2\ndescription = \"d\"\nsystem_prompt = \"s\"\ntools = [\"planner\"]\n",
    )
    .unwrap();
    let out = quire(
        &["agents", "--workspace", ws.to_str().unwrap()],
        dir.path(),
        dir.path(),
    );
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("error[agent_spec_invalid]"), "{stderr}");
    assert!(
        stderr.contains("agents/critic.toml: field `tools`"),
        "{stderr}"
    );
}

#[tokio::test]
async fn quire_agent_run_runs_any_agent_on_any_workspace() {
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let config = scripted_config(&server.base_url(), "");
    let data = tempfile::tempdir().unwrap();
    let ws = data.path().join("plain");
    let (config_dir, data_dir) = (config.path().to_owned(), data.path().to_owned());
    let ws2 = ws.clone();
    let out = tokio::task::spawn_blocking(move || {
        quire(
            &[
                "agent",
                "run",
                "planner",
                "--json",
                "--workspace",
                ws2.to_str().unwrap(),
                "--task",
                "1. write_todos with these steps.\n2. write_file notes.md with a short plan.\n3. finish.",
            ],
            &config_dir,
            &data_dir,
        )
    })
    .await
    .unwrap();
    let response = finished(&out);
    assert!(response["modelCalls"].as_u64().unwrap() >= 4);
    assert!(ws.join("notes.md").is_file());
    let todo = std::fs::read_to_string(ws.join("tasks/t0001-planner/todo.md")).unwrap();
    assert_eq!(todo.matches("- [x]").count(), 2, "{todo}");
    let graph: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("tasks.json")).unwrap()).unwrap();
    assert_eq!(graph["tasks"][0]["status"], "finished");
    assert!(!server.requests().is_empty());
}

/// The reviewer's `read_papers` takes named ids or a count of open papers, and
/// refuses neither or both with a message the model can act on; whichever way
/// a paper is asked for, it is read once.
#[tokio::test]
async fn read_papers_takes_named_ids_or_the_next_open_ones() {
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    // A window that holds each paper whole, however the server's count
    // sizes later prompts: one reader request per paper, as scripted below.
    let config = scripted_config(&server.base_url(), "context_window = 131072\n");
    let data = tempfile::tempdir().unwrap();
    let folder = super::support::folder_of(&super::support::dev_pdfs("distributed-systems", 3));
    let ws = data.path().join("ws");
    let (config_dir, data_dir) = (config.path().to_owned(), data.path().to_owned());
    let run = move |args: Vec<String>| {
        let (config_dir, data_dir) = (config_dir.clone(), data_dir.clone());
        tokio::task::spawn_blocking(move || {
            let args: Vec<&str> = args.iter().map(String::as_str).collect();
            quire(&args, &config_dir, &data_dir)
        })
    };
    let ws_arg = ws.to_str().unwrap().to_owned();
    // An offline review registers and extracts the papers; its results are
    // not the agent's, so all three are open to the reviewer.
    let out = run(vec![
        "review".into(),
        folder.path().to_str().unwrap().into(),
        "--question".into(),
        "How is state replicated?".into(),
        "--workspace".into(),
        ws_arg.clone(),
        "--json".into(),
    ])
    .await
    .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let mut ids: Vec<String> = std::fs::read_dir(ws.join("papers"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    ids.sort();
    assert_eq!(ids.len(), 3);

    use testkit::{Reply, ScriptedCall, Step};
    // Steps are served in arrival order; a paper's read is one request (the
    // reader policy answers it) between the reviewer's steps.
    let reader: Step = Reply::Policy.into();
    server.push([
        Step::tools(vec![ScriptedCall::new(
            "read_papers",
            serde_json::json!({"ids": [ids[1]]}),
        )]),
        reader.clone(),
        Step::tools(vec![ScriptedCall::new(
            "read_papers",
            serde_json::json!({"open": 1}),
        )]),
        reader,
        Step::tools(vec![ScriptedCall::new(
            "read_papers",
            serde_json::json!({}),
        )]),
        Step::tools(vec![ScriptedCall::new(
            "read_papers",
            serde_json::json!({"ids": [ids[2]], "open": 1}),
        )]),
    ]);
    let out = run(vec![
        "agent".into(),
        "run".into(),
        "reviewer".into(),
        "--json".into(),
        "--workspace".into(),
        ws_arg,
        "--task".into(),
        "Have every readable paper read and scored.".into(),
    ])
    .await
    .unwrap();
    finished(&out);

    let log = std::fs::read_to_string(ws.join("tasks/t0001-reviewer/actions.jsonl")).unwrap();
    let actions: Vec<serde_json::Value> = log
        .lines()
        .map(|l| serde_json::from_str(l).unwrap())
        .filter(|a: &serde_json::Value| a["tool"] == "read_papers")
        .collect();
    let preview = |a: &serde_json::Value| a["preview"].as_str().unwrap_or("").to_owned();
    // By id: that paper. By count: the first open one, which is ids[0].
    assert_eq!(actions[0]["ok"], true);
    assert!(
        preview(&actions[0]).starts_with("Read 1 of 1 papers"),
        "{}",
        preview(&actions[0])
    );
    assert!(preview(&actions[0]).contains(&format!(": {} ", ids[1])));
    assert!(preview(&actions[0]).contains("2 papers still open"));
    assert!(
        preview(&actions[1]).contains(&format!(": {} ", ids[0])),
        "{}",
        preview(&actions[1])
    );
    assert!(preview(&actions[1]).contains("1 papers still open"));
    for refused in &actions[2..4] {
        assert_eq!(refused["ok"], false, "{refused}");
        assert_eq!(refused["code"], "invalid_arguments", "{refused}");
    }
    assert!(
        actions[2]["summary"].as_str().unwrap().contains("open: N"),
        "{}",
        actions[2]
    );
    assert!(
        actions[3]["summary"].as_str().unwrap().contains("not both"),
        "{}",
        actions[3]
    );
    // The policy read the last one; every paper has the agent's result, each
    // from one reader call.
    for id in &ids {
        let result: serde_json::Value = serde_json::from_str(
            &std::fs::read_to_string(ws.join("papers").join(id).join("result.json")).unwrap(),
        )
        .unwrap();
        assert_eq!(result["provenance"]["engine"], "agent", "{id}");
    }
    let reads = super::agent_review::reader_calls(&server.requests());
    assert_eq!(reads.len(), 3, "{reads:?}");
    assert!(reads.values().all(|n| *n == 1), "{reads:?}");
}

#[tokio::test]
async fn a_cost_cap_on_a_model_with_no_price_is_refused_unless_a_token_cap_bounds_the_run() {
    let server = ScriptedServer::start(ServerOptions::default())
        .await
        .unwrap();
    let config = scripted_config(&server.base_url(), "");
    let data = tempfile::tempdir().unwrap();
    let folder = super::support::folder_of(&super::support::dev_pdfs("databases", 1));
    let question = "How do databases recover from crashes?";
    let review = async |extra: &[&str]| {
        let mut args = vec!["--max-cost", "0.50"];
        args.extend_from_slice(extra);
        super::support::quire_review(folder.path(), question, config.path(), data.path(), &args)
            .await
    };
    let refused = review(&[]).await;
    assert!(!refused.status.success());
    let stderr = String::from_utf8_lossy(&refused.stderr);
    assert!(stderr.contains("error[unpriced_model]"), "{stderr}");
    assert!(stderr.contains("scripted-reader"), "{stderr}");
    assert!(server.requests().is_empty(), "nothing was spent");
    // A token cap bounds the run, so it may start.
    let capped = review(&["--max-tokens", "200000"]).await;
    assert!(
        capped.status.success(),
        "{}",
        String::from_utf8_lossy(&capped.stderr)
    );
    assert!(!server.requests().is_empty());
}
