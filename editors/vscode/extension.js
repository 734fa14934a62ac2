// Starts the rulecraft language server (`rulecraft lsp`, over stdio) for .rules files.
"use strict";

const vscode = require("vscode");
const { LanguageClient, TransportKind } = require("vscode-languageclient/node");

let client;

function activate(context) {
  const command = vscode.workspace.getConfiguration("rulecraft").get("command", "rulecraft");
  const serverOptions = { command, args: ["lsp"], transport: TransportKind.stdio };
  const clientOptions = {
    documentSelector: [
      { scheme: "file", language: "rulecraft" },
      { scheme: "untitled", language: "rulecraft" },
    ],
  };
  client = new LanguageClient("rulecraft", "rulecraft language server", serverOptions, clientOptions);
  context.subscriptions.push(client);
  return client.start();
}

function deactivate() {
  return client ? client.stop() : undefined;
}

module.exports = { activate, deactivate };
