"""How `--help` shows options: a flag takes no value, so it shows no value type; brackets show.

typer (0.2x) prints the type of every option in `--help`, flags included: `--no-judge <bool>`
reads as if the flag took a value. An empty metavar is what typer prints instead, so the root
group gives one to every flag of every command under it, once, when the command tree is built:
commands added later (in any module) are covered without each declaring it.

typer also reads help text as Rich markup, where `[cache]` is a style tag and disappears
("default: [cache] url" printed "default:  url"): the same pass escapes every bracket of every
option's and argument's help.
"""

from __future__ import annotations

from typing import Any

import typer
from typer.core import TyperCommand, TyperGroup, TyperOption


class FlagsWithoutTypeGroup(TyperGroup):
    """The root group: every flag of every command under it shows no `<bool>` in `--help`."""

    def __init__(self, **attrs: Any) -> None:
        super().__init__(**attrs)
        hide_flag_types(self)


def hide_flag_types(command: TyperCommand | TyperGroup) -> None:
    """Give every flag of `command` and of the commands under it (the help flag too) an empty
    metavar, which typer prints in place of the flag's type."""
    # The help option is made on first use and kept; make it here, from the command's own
    # context settings as a run would, so that the one `--help` shows is the one changed.
    context = typer.Context(command, **command.context_settings)
    help_option = command.get_help_option(context)
    for param in [*command.params, *([help_option] if help_option else [])]:
        if isinstance(param, TyperOption) and param.is_flag and param.metavar is None:
            param.metavar = ""
        text = getattr(param, "help", None)
        if isinstance(text, str) and "[" in text and "\\[" not in text:
            param.help = text.replace("[", "\\[")  # type: ignore[attr-defined]
    if isinstance(command, TyperGroup):
        for sub in command.commands.values():
            if isinstance(sub, TyperCommand | TyperGroup):
                hide_flag_types(sub)
