// VS Code client for the civdsl language server: starts `civdsl lsp` (over stdio) for .civ files.
// Highlighting comes from syntaxes/civdsl.tmLanguage.json; everything else from the server.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const config = vscode.workspace.getConfiguration("civdsl");
  const [command, ...args] = config.get("server.command") || ["civdsl", "lsp"];
  const folder = vscode.workspace.workspaceFolders && vscode.workspace.workspaceFolders[0];
  const serverOptions = {
    command,
    args,
    transport: TransportKind.stdio, // adds --stdio, which `civdsl lsp` accepts
    options: folder ? { cwd: folder.uri.fsPath } : undefined, // diagnostics name files relative to it
  };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "civdsl" },
      { scheme: "untitled", language: "civdsl" },
    ],
    synchronize: {
      // a base rulebook changed on disk: the server checks every open house rule again
      fileEvents: vscode.workspace.createFileSystemWatcher("**/*.civ"),
    },
  };
  client = new LanguageClient("civdsl", "civdsl language server", serverOptions, clientOptions);
  context.subscriptions.push({ dispose: () => client && client.stop() });
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
