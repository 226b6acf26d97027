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

  it("turns a command's {kind, message} rejection into a QuireError", async () => {
    mockIPC(() => {
      // eslint-disable-next-line @typescript-eslint/only-throw-error -- Tauri rejects with the command's plain {kind, message} object
      throw { kind: "folder_not_found", message: "/nope does not exist" };
    });
    const error: unknown = await tauriPlatform.createWorkspace("/nope").catch((e: unknown) => e);
    expect(error).toBeInstanceOf(QuireError);
    expect(error).toMatchObject({ kind: "folder_not_found", message: "/nope does not exist" });
  });

  it("lists workspaces through workspace_list", async () => {
    mockIPC((cmd) => (cmd === "workspace_list" ? { workspaces: [], notice: null } : null));
    await expect(tauriPlatform.listWorkspaces()).resolves.toEqual({ workspaces: [], notice: null });
  });
});

describe("QuireError.from", () => {
  it("keeps kind and message of structured errors and wraps anything else", () => {
    expect(QuireError.from({ kind: "k", message: "m" })).toMatchObject({ kind: "k", message: "m" });
    expect(QuireError.from("boom")).toMatchObject({ kind: "internal_error", message: "boom" });
    expect(QuireError.from(new Error("x"))).toMatchObject({ kind: "internal_error", message: "x" });
  });
});
