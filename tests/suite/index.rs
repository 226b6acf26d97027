//! The index is a cache: rebuilt from the workspaces it equals the original, and a
//! damaged or busy database never stops the listing.

use std::path::Path;

use quire::commands::{self, AppContext, AppPaths, WorkspaceCreateParams};
use quire::index::{Index, OpenOutcome};
use quire::workspace::{RunId, RunRecord, RunStatus, Workspace};

use super::support::{dev_pdfs, folder_of};

async fn create(ctx: &AppContext, folder: &Path) -> commands::WorkspaceSummary {
    commands::workspace_create(
        ctx,
        WorkspaceCreateParams {
            folder: folder.to_path_buf(),
        },
    )
    .await
    .unwrap()
}

/// A data folder holding one review of two papers, indexed.
async fn a_review_of_two_papers() -> (tempfile::TempDir, AppPaths, tempfile::TempDir) {
    let data = tempfile::tempdir().unwrap();
    let paths = AppPaths::new(data.path());
    let folder = folder_of(&dev_pdfs("databases", 2));
    create(&AppContext::new(paths.clone()), folder.path()).await;
    (data, paths, folder)
}

/// SQLite's write-ahead log and shared memory beside the index: gone, so
/// what happens to the main file is all there is.
fn forget_the_journal(index: &Path) {
    for suffix in ["-wal", "-shm"] {
        let _ = std::fs::remove_file(format!("{}{suffix}", index.display()));
    }
}

#[tokio::test]
async fn a_rebuilt_index_equals_the_original() {
    let data = tempfile::tempdir().unwrap();
    let ctx = AppContext::new(AppPaths::new(data.path()));
    let a = folder_of(&dev_pdfs("databases", 3));
    let b = folder_of(&dev_pdfs("machine-learning", 2));
    // A byte-identical copy under another name must be listed once, as a duplicate.
    let first = dev_pdfs("machine-learning", 1).remove(0);
    std::fs::copy(&first, b.path().join("copy-of-first.pdf")).unwrap();
    create(&ctx, a.path()).await;
    let summary_b = create(&ctx, b.path()).await;
    assert_eq!((summary_b.paper_count, summary_b.duplicate_count), (2, 1));
    {
        // A run record written by an engine is indexed too.
        let ws = Workspace::open(Path::new(&summary_b.root)).unwrap();
        ws.save_run(&RunRecord {
            id: RunId("run-1".into()),
            engine: "offline".into(),
            status: RunStatus::Done,
            started_at: "2026-11-30T10:00:00Z".into(),
            finished_at: Some("2026-11-30T10:01:00Z".into()),
            undriven: Vec::new(),
        })
        .unwrap();
        let snapshot = quire::index::WorkspaceSnapshot::of(&ws).unwrap();
        let (mut index, _) = Index::open(&ctx.paths().index_path()).unwrap();
        index.upsert(&snapshot).unwrap();
    }
    let (original, outcome) = Index::open(&ctx.paths().index_path()).unwrap();
    assert_eq!(outcome, OpenOutcome::Existing);
    let before = original.dump().unwrap();
    drop(original);
    assert_eq!(
        (
            before.workspaces.len(),
            before.papers.len(),
            before.runs.len()
        ),
        (2, 5, 1)
    );

    let rebuilt_path = data.path().join("rebuilt.sqlite3");
    let (mut rebuilt, outcome) = Index::open(&rebuilt_path).unwrap();
    assert_eq!(outcome, OpenOutcome::Fresh);
    let report = rebuilt.rebuild(&[ctx.paths().workspaces_root()]).unwrap();
    assert_eq!((report.workspaces, report.papers, report.runs), (2, 5, 1));
    assert_eq!(rebuilt.dump().unwrap(), before);
}

#[tokio::test]
async fn a_corrupt_index_is_set_aside_and_rebuilt_from_the_workspaces() {
    let (data, paths, _folder) = a_review_of_two_papers().await;
    forget_the_journal(&paths.index_path());
    std::fs::write(
        paths.index_path(),
        b"this is not an SQLite database, it is garbage ".repeat(200),
    )
    .unwrap();

    let list = commands::workspace_list(&AppContext::new(paths.clone()))
        .await
        .unwrap();
    assert_eq!(
        list.notice, None,
        "a corrupt index is rebuilt, not worked around"
    );
    assert_eq!(list.workspaces.len(), 1);
    assert_eq!(list.workspaces[0].paper_count, 2);
    let set_aside = std::fs::read_dir(data.path())
        .unwrap()
        .filter(|e| {
            e.as_ref()
                .unwrap()
                .file_name()
                .to_string_lossy()
                .starts_with("index.sqlite3.corrupt-")
        })
        .count();
    assert_eq!(set_aside, 1, "the damaged file is kept for inspection");
}

#[tokio::test]
async fn an_index_whose_first_rebuild_was_cut_short_is_rebuilt() {
    let (_data, paths, _folder) = a_review_of_two_papers().await;
    // A process killed between creating the database and committing its first
    // rebuild leaves a database with the schema and no rows.
    std::fs::remove_file(paths.index_path()).unwrap();
    forget_the_journal(&paths.index_path());
    let (created, outcome) = Index::open(&paths.index_path()).unwrap();
    assert_eq!(outcome, OpenOutcome::Fresh);
    drop(created);

    let (reopened, outcome) = Index::open(&paths.index_path()).unwrap();
    assert_eq!(
        outcome,
        OpenOutcome::Fresh,
        "an unfilled index is not complete"
    );
    drop(reopened);
    let list = commands::workspace_list(&AppContext::new(paths.clone()))
        .await
        .unwrap();
    assert_eq!(list.workspaces.len(), 1);
    assert_eq!(list.workspaces[0].paper_count, 2);
    let (_, outcome) = Index::open(&paths.index_path()).unwrap();
    assert_eq!(outcome, OpenOutcome::Existing);
}

/// Another process holding the database in exclusive locking mode: even WAL
/// readers are shut out.
fn hold_exclusively(path: &Path) -> rusqlite::Connection {
    let blocker = rusqlite::Connection::open(path).unwrap();
    blocker
        .execute_batch("PRAGMA locking_mode = EXCLUSIVE; BEGIN EXCLUSIVE; UPDATE workspaces SET title = title; COMMIT;")
        .unwrap();
    blocker
}

#[tokio::test]
async fn a_busy_index_falls_back_to_reading_the_workspaces() {
    let data = tempfile::tempdir().unwrap();
    let paths = AppPaths::new(data.path());
    let folder = folder_of(&dev_pdfs("distributed-systems", 1));
    create(&AppContext::new(paths.clone()), folder.path()).await;

    let blocker = hold_exclusively(&paths.index_path());
    let list = commands::workspace_list(&AppContext::new(paths.clone()))
        .await
        .unwrap();
    let notice = list.notice.expect("the fallback says why");
    assert!(notice.contains("busy"), "{notice}");
    assert_eq!(list.workspaces.len(), 1);
    assert_eq!(list.workspaces[0].paper_count, 1);
    drop(blocker);
}

#[tokio::test]
async fn a_workspace_created_while_the_index_is_busy_appears_once_it_is_free() {
    let data = tempfile::tempdir().unwrap();
    let paths = AppPaths::new(data.path());
    let ctx = AppContext::new(paths.clone());
    let first = folder_of(&dev_pdfs("databases", 1));
    create(&ctx, first.path()).await;

    // Another process in the middle of a long write transaction.
    let blocker = rusqlite::Connection::open(paths.index_path()).unwrap();
    blocker
        .execute_batch("BEGIN EXCLUSIVE; UPDATE workspaces SET title = title;")
        .unwrap();
    let second = folder_of(&dev_pdfs("machine-learning", 1));
    let created = create(&ctx, second.path()).await;
    blocker.execute_batch("COMMIT").unwrap();
    drop(blocker);

    let list = commands::workspace_list(&ctx).await.unwrap();
    assert_eq!(list.notice, None);
    assert!(
        list.workspaces.iter().any(|w| w.id == created.id),
        "{:?}",
        list.workspaces
    );
    assert_eq!(list.workspaces.len(), 2);
}

#[tokio::test]
async fn a_missing_index_is_rebuilt_on_first_use() {
    let data = tempfile::tempdir().unwrap();
    let paths = AppPaths::new(data.path());
    let folder = folder_of(&dev_pdfs("programming-languages", 2));
    let created = create(&AppContext::new(paths.clone()), folder.path()).await;
    std::fs::remove_file(paths.index_path()).unwrap();
    let list = commands::workspace_list(&AppContext::new(paths))
        .await
        .unwrap();
    assert_eq!(list.workspaces, vec![created]);
}
