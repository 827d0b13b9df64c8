// `nex completion bash|zsh|fish`: a completion script made from the command table, so a new command
// or flag completes without anyone editing a script.
import { COMMANDS, COMMON_FLAGS, type CommandSpec } from "./commands.ts";

const names = Object.keys(COMMANDS);

function flagsOf(spec: CommandSpec): string[] {
  return [...new Set([...COMMON_FLAGS, ...spec.flags])]
    .filter((flag) => flag.length > 1)
    .map((flag) => `--${flag}`);
}

/** Text safe inside single quotes in every shell here. */
function quoted(text: string): string {
  return `'${text.replace(/'/g, "'\\''")}'`;
}

function bash(): string {
  const cases = names
    .map(
      (name) => `    ${name}) flags=${quoted(flagsOf(COMMANDS[name] as CommandSpec).join(" "))} ;;`,
    )
    .join("\n");
  return `# nex completion for bash: add \`source <(nex completion bash)\` to ~/.bashrc
_nex() {
  local cur=\${COMP_WORDS[COMP_CWORD]} command=chat flags i
  for ((i = 1; i < COMP_CWORD; i++)); do
    case \${COMP_WORDS[i]} in -*) ;; *) command=\${COMP_WORDS[i]}; break ;; esac
  done
  case $command in
${cases}
    *) flags='' ;;
  esac
  if [[ $cur == -* ]]; then
    COMPREPLY=($(compgen -W "$flags" -- "$cur"))
  elif [[ $command == chat ]]; then
    COMPREPLY=($(compgen -W ${quoted(names.join(" "))} -- "$cur"))
  elif [[ $command == completion ]]; then
    COMPREPLY=($(compgen -W 'bash zsh fish' -- "$cur"))
  else
    COMPREPLY=($(compgen -f -- "$cur"))
  fi
}
complete -o default -F _nex nex
`;
}

function zsh(): string {
  const described = names
    .map((name) => quoted(`${name}:${(COMMANDS[name] as CommandSpec).about.replace(/:/g, "\\:")}`))
    .join(" ");
  const cases = names
    .map(
      (name) =>
        `    ${name}) flags=(${flagsOf(COMMANDS[name] as CommandSpec)
          .map(quoted)
          .join(" ")}) ;;`,
    )
    .join("\n");
  return `#compdef nex
# nex completion for zsh: add \`source <(nex completion zsh)\` to ~/.zshrc (after compinit)
_nex() {
  local -a commands flags
  commands=(${described})
  if (( CURRENT == 2 )) && [[ $words[CURRENT] != -* ]]; then
    _describe 'nex command' commands
    return
  fi
  case $words[2] in
${cases}
    *) flags=(${flagsOf(COMMANDS.chat as CommandSpec)
      .map(quoted)
      .join(" ")}) ;;
  esac
  if [[ $words[CURRENT] == -* ]]; then
    compadd -- $flags
  elif [[ $words[2] == completion ]]; then
    compadd -- bash zsh fish
  else
    _files
  fi
}
compdef _nex nex
`;
}

function fish(): string {
  const lines = [
    "# nex completion for fish: nex completion fish > ~/.config/fish/completions/nex.fish",
    "complete -c nex -f",
  ];
  for (const name of names) {
    const spec = COMMANDS[name] as CommandSpec;
    lines.push(
      `complete -c nex -n __fish_use_subcommand -a ${name} -d ${quoted(spec.about)}`,
      ...flagsOf(spec).map(
        (flag) => `complete -c nex -n '__fish_seen_subcommand_from ${name}' -l ${flag.slice(2)}`,
      ),
    );
  }
  lines.push("complete -c nex -n '__fish_seen_subcommand_from completion' -a 'bash zsh fish'");
  return `${lines.join("\n")}\n`;
}

/** The completion script for `shell` (bash, zsh or fish). */
export function completionScript(shell: string): string {
  if (shell === "zsh") return zsh();
  if (shell === "fish") return fish();
  return bash();
}
