//! The commands the desktop shell and CLI share.

use quire::commands::ErrorKind;
use quire::commands::{self, AppContext, AppPaths, WorkspaceCreateParams};
use quire::workspace::Workspace;

use super::support::{dev_pdfs, folder_of};

#[tokio::test]
async fn creating_a_workspace_for_a_folder_registers_its_pdfs() {
    let data = tempfile::tempdir().unwrap();
    let ctx = AppContext::new(AppPaths::new(data.path()));
    let folder = folder_of(&dev_pdfs("databases", 3));
    std::fs::create_dir(folder.path().join("nested")).unwrap();
    std::fs::copy(
        dev_pdfs("machine-learning", 1).remove(0),
        folder.path().join("nested/deep.PDF"),
    )
    .unwrap();
    std::fs::write(folder.path().join("readme.txt"), "not a paper").unwrap();

    let summary = commands::workspace_create(
        &ctx,
        WorkspaceCreateParams {
            folder: folder.path().into(),
        },
    )
    .await
    .unwrap();
    assert_eq!(summary.paper_count, 4);
    assert_eq!(summary.status, "new");
    assert_eq!(
        summary.title,
        folder.path().file_name().unwrap().to_string_lossy()
    );
    assert!(
        summary
            .root
            .starts_with(&data.path().join("workspaces").display().to_string())
    );
    let ws = Workspace::open(std::path::Path::new(&summary.root)).unwrap();
    let papers = ws.papers().unwrap();
    assert!(papers.iter().any(|p| p.file.ends_with("nested/deep.PDF")));
    assert!(
        papers
            .iter()
            .all(|p| p.sha256.len() == 64 && p.sha256.starts_with(&p.id.0))
    );
}

#[tokio::test]
async fn dropping_the_same_folder_again_reopens_its_workspace_with_new_papers() {
    let data = tempfile::tempdir().unwrap();
    let ctx = AppContext::new(AppPaths::new(data.path()));
    let pdfs = dev_pdfs("distributed-systems", 3);
    let folder = folder_of(&pdfs[..2]);
    let first = commands::workspace_create(
        &ctx,
        WorkspaceCreateParams {
            folder: folder.path().into(),
        },
    )
    .await
    .unwrap();
    std::fs::copy(&pdfs[2], folder.path().join("added-later.pdf")).unwrap();
    let second = commands::workspace_create(
        &ctx,
        WorkspaceCreateParams {
            folder: folder.path().into(),
        },
    )
    .await
    .unwrap();
    assert_eq!(second.id, first.id);
    assert_eq!(second.paper_count, 3);
    let list = commands::workspace_list(&ctx).await.unwrap();
    assert_eq!(list.workspaces.len(), 1);
}

#[tokio::test]
async fn bad_folders_get_specific_errors() {
    let data = tempfile::tempdir().unwrap();
    let ctx = AppContext::new(AppPaths::new(data.path()));
    let missing = commands::workspace_create(
        &ctx,
        WorkspaceCreateParams {
            folder: "/no/such/folder".into(),
        },
    )
    .await
    .unwrap_err();
    assert_eq!(
        (missing.kind, missing.code.as_str()),
        (ErrorKind::NotFound, "folder_not_found")
    );
    let text = data.path().join("notes.docx");
    std::fs::write(&text, "x").unwrap();
    let not_folder = commands::workspace_create(&ctx, WorkspaceCreateParams { folder: text })
        .await
        .unwrap_err();
    assert_eq!(
        (not_folder.kind, not_folder.code.as_str()),
        (ErrorKind::InvalidInput, "not_a_folder")
    );
    // A file named as a search export is read as one, and refused with what
    // was expected when it is none.
    let text = data.path().join("notes.txt");
    std::fs::write(&text, "to read on Monday").unwrap();
    let not_export = commands::workspace_create(&ctx, WorkspaceCreateParams { folder: text })
        .await
        .unwrap_err();
    assert_eq!(
        (not_export.kind, not_export.code.as_str()),
        (ErrorKind::InvalidInput, "records_unreadable")
    );
    assert!(
        not_export.message.contains("not a search export"),
        "{}",
        not_export.message
    );
    assert!(
        commands::workspace_list(&ctx)
            .await
            .unwrap()
            .workspaces
            .is_empty()
    );
}

#[tokio::test]
async fn a_single_pdf_file_becomes_a_workspace_of_one_paper() {
    let data = tempfile::tempdir().unwrap();
    let ctx = AppContext::new(AppPaths::new(data.path()));
    let pdf = dev_pdfs("machine-learning", 1).remove(0);
    let summary = commands::workspace_create(
        &ctx,
        WorkspaceCreateParams {
            folder: pdf.clone(),
        },
    )
    .await
    .unwrap();
    assert_eq!(summary.paper_count, 1);
    assert_eq!(summary.title, pdf.file_stem().unwrap().to_string_lossy());
}

#[test]
fn parameters_that_carry_a_key_never_show_it_when_printed() {
    let key = "sk-secret-1234567890";
    let model: commands::models::ModelProfileSaveParams = serde_json::from_value(
        serde_json::json!({"name": "p", "settings": {"base_url": "https://api.example.com/v1", "model": "m"}, "apiKey": key}),
    )
    .unwrap();
    let zotero: commands::zotero::ZoteroKeyParams =
        serde_json::from_value(serde_json::json!({ "key": key })).unwrap();
    let openalex: commands::openalex::OpenAlexKeyParams =
        serde_json::from_value(serde_json::json!({ "key": key })).unwrap();
    for shown in [
        format!("{model:?}"),
        format!("{zotero:?}"),
        format!("{openalex:?}"),
    ] {
        assert!(!shown.contains(key), "{shown}");
        assert!(shown.contains("***"), "{shown}");
    }
}
