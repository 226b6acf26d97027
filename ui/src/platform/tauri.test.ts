import { clearMocks, mockIPC } from "@tauri-apps/api/mocks";
import { afterEach, describe, expect, it } from "vitest";

import { tauriPlatform } from "./tauri";
import { QuireError } from "./types";

afterEach(() => {
  clearMocks();
});

describe("tauri platform adapter", () => {
  it("calls workspace_create with the folder wrapped in params", async () => {
    const calls: [string, unknown][] = [];
    mockIPC((cmd, args) => {
      calls.push([cmd, args]);
      return { id: "w1", title: "papers" };
    });
    const summary = await tauriPlatform.createWorkspace("/home/r/papers");
    expect(calls).toEqual([["workspace_create", { params: { folder: "/home/r/papers" } }]]);
    expect(summary.id).toBe("w1");
  });

  it("turns a command's {kind, code, message} rejection into a QuireError", async () => {
    mockIPC(() => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- Tauri rejects with the command's plain {kind, code, message} object
      throw { kind: "not_found", code: "folder_not_found", message: "/nope does not exist" };
    });
    const error: unknown = await tauriPlatform.createWorkspace("/nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuireError);
    expect(error).toMatchObject({ kind: "not_found", code: "folder_not_found", message: "/nope does not exist" });
  });

  it("lists workspaces through workspace_list", async () => {
    mockIPC((cmd) => (cmd === "workspace_list" ? { workspaces: [], notice: null } : null));
    await expect(tauriPlatform.listWorkspaces()).resolves.toEqual({ workspaces: [], notice: null });
  });
});

describe("QuireError.from", () => {
  it("keeps kind, code and message of structured errors and wraps anything else", () => {
    expect(QuireError.from({ kind: "busy", code: "review_running", message: "m" })).toMatchObject({
      kind: "busy",
      code: "review_running",
      message: "m",
    });
    // A kind this build does not know is an internal fault, its code kept.
    expect(QuireError.from({ kind: "k", code: "c", message: "m" })).toMatchObject({ kind: "internal", code: "c" });
    expect(QuireError.from("boom")).toMatchObject({ kind: "internal", code: "internal_error", message: "boom" });
    expect(QuireError.from(new Error("x"))).toMatchObject({ kind: "internal", message: "x" });
  });
});
