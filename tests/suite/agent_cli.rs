//! `quire agents` and `quire agent run` as a user runs them: the effective
//! agents of a workspace, and any agent run on any workspace against the
//! scripted model server.

use std::process::Output;

use testkit::{ScriptedServer, ServerOptions};

use super::support::{quire_bin, scripted_config};

fn quire(args: &[&str], config: &std::path::Path, data: &std::path::Path) -> Output {
    std::process::Command::new(quire_bin())
        .args(args)
        .env("QUIRE_CONFIG_DIR", config)
        .env("QUIRE_DATA_DIR", data)
        .env("QUIRE_SECRET_STORE", "file")
        .env("QUIRE_OLLAMA_URL", "http://127.0.0.1:9")
        .output()
        .unwrap()
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
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let response: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(response["status"], "finished", "{response}");
    assert!(response["modelCalls"].as_u64().unwrap() >= 4);
    assert!(ws.join("notes.md").is_file());
    let todo = std::fs::read_to_string(ws.join("tasks/t0001-planner/todo.md")).unwrap();
    assert_eq!(todo.matches("- [x]").count(), 2, "{todo}");
    let graph: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(ws.join("tasks.json")).unwrap()).unwrap();
    assert_eq!(graph["tasks"][0]["status"], "finished");
    assert!(!server.requests().is_empty());
}
