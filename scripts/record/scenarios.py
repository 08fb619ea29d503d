"""The scripted scenarios, defined once. `mock.py` serves each of them in every wire API,
and `agents.py` derives each recording's `.expect.json` from them.

A scenario is a list of model turns. The mock picks the turn from the number of tool
results in the conversation since the last prompt that carries a marker, so it needs no
state: turn k is served once the tools of turns 0..k-1 have all reported back. A prompt
selects its scenario with a marker word `SCEN_<NAME>` (the last one in the conversation
wins: a resumed session holds the earlier prompt too); `LINES=<n>` sizes the big-output
command.

A scenario with `then` is recorded as two invocations of the CLI in the same HOME and
project: the first prompt, then the same session resumed with the prompt of `then` (a
scenario of its own marker, served by the same rules).
"""

from dataclasses import dataclass, field


@dataclass
class Tool:
    kind: str  # "shell" or "read": mapped to each agent's own tool in mock.py
    arg: str  # the command, or the file name (relative to the project)
    outcome: str = "success"  # success | rejected (by the CLI's permission setup) | pending


@dataclass
class Turn:
    text: list[str] = field(default_factory=list)  # answer deltas
    thinking: list[str] = field(default_factory=list)  # reasoning deltas, before the text
    tools: list[Tool] = field(default_factory=list)  # calls after the text, in one response
    http_error: int | None = None  # answer every request of this turn with this status
    stall_after: int | None = None  # send this many text deltas, then go silent
    delay: float = 0.02  # seconds between deltas: real timing, not one burst


@dataclass
class Scenario:
    name: str
    prompt: str
    turns: list[Turn]
    status: str = "success"  # success | failed | no_result: what the run must be read as
    then: "Scenario | None" = None  # a second invocation that resumes the session


def _words(text: str) -> list[str]:
    """Split a sentence into word deltas, as models stream them."""
    parts = text.split(" ")
    return [p if i == 0 else " " + p for i, p in enumerate(parts)]


LONG = [f"Line {i:03}: the mock keeps streaming.\n" for i in range(1, 301)]
COUNT = [f"{i}, " for i in range(1, 21)]

SCENARIOS = {
    s.name: s
    for s in [
        Scenario("plain", "Say hello.", [Turn(text=_words("Hello from the mock model."))]),
        Scenario(
            "tool",
            "Run echo hi.",
            [
                Turn(text=_words("I will run a command."), tools=[Tool("shell", "echo hi")]),
                Turn(text=_words("The command printed hi.")),
            ],
        ),
        Scenario(
            "read",
            "Read notes.txt.",
            [
                Turn(text=_words("Let me read the notes."), tools=[Tool("read", "notes.txt")]),
                Turn(text=_words("The notes say hello.")),
            ],
        ),
        Scenario(
            "parallel",
            "Run two commands at once.",
            [
                Turn(
                    text=_words("Running two commands at once."),
                    tools=[Tool("shell", "echo one"), Tool("shell", "echo two")],
                ),
                Turn(text=_words("Both commands finished.")),
            ],
        ),
        Scenario(
            "think",
            "Think, then answer.",
            [
                Turn(
                    thinking=_words("The user wants a number. Forty-two is traditional."),
                    text=_words("After some thought: forty-two."),
                )
            ],
        ),
        Scenario("long", "Stream a long answer.", [Turn(text=LONG, delay=0.005)]),
        # `seq 1 LINES`: 300 000 lines (2 MB) at record time, 20 000 (109 KB) committed.
        Scenario(
            "bigout",
            "Print many lines.",
            [
                Turn(text=_words("Printing many lines."), tools=[Tool("shell", "seq 1 {lines}")]),
                Turn(text=_words("That was a lot of output.")),
            ],
        ),
        # Each agent is run so that this call is refused by its permission setup.
        Scenario(
            "denied",
            "Create a file.",
            [
                Turn(
                    text=_words("I will create a file."),
                    tools=[Tool("shell", "touch denied.txt", outcome="rejected")],
                ),
                Turn(text=_words("The command was not allowed.")),
            ],
        ),
        # A server error on every request: the CLI retries (few times, see agents.py), then fails.
        Scenario("fail", "Fail with a server error.", [Turn(http_error=500)], status="failed"),
        # A request the server refuses outright: no retry, a quick failure.
        Scenario("badrequest", "Fail with a bad request.", [Turn(http_error=400)], status="failed"),
        # Twenty deltas, then silence: the recorder (or `run --idle-timeout`) kills the group.
        Scenario(
            "killed",
            "Count slowly.",
            [Turn(text=COUNT + ["never sent"], stall_after=len(COUNT), delay=0.05)],
            status="no_result",
        ),
        # A slow command, and the recorder (or Ctrl-C in the run suite) kills the CLI's group
        # while it runs: the call never completes, and nothing it started may be left.
        Scenario(
            "midtool",
            "Run a slow command.",
            [
                # not a plain `sleep`: Claude Code refuses a standalone sleep
                Turn(
                    text=_words("Waiting a while."),
                    tools=[Tool("shell", "python3 -c 'import time; time.sleep(30)'", outcome="pending")],
                ),
                Turn(text=_words("Done waiting.")),
            ],
            status="no_result",
        ),
        # Two invocations: a plain answer, then the same session resumed (each CLI's own
        # resume flag, agents.py) with a prompt that makes a shell call.
        Scenario(
            "resume",
            "Say hello, first turn.",
            [Turn(text=_words("Hello from the first turn."))],
            then=Scenario(
                "resumed",
                "Now run echo resumed.",
                [
                    Turn(text=_words("Resuming with a command."), tools=[Tool("shell", "echo resumed")]),
                    Turn(text=_words("The resumed session printed resumed.")),
                ],
            ),
        ),
    ]
}
# Every scenario a marker can name: the recorded ones and the second parts of resumes.
BY_NAME = {**SCENARIOS, **{s.then.name: s.then for s in SCENARIOS.values() if s.then}}

# Requests that are not the agent's turn (Gemini's model router, OpenCode's title,
# Qwen's memory extraction) get this, whatever the scenario.
SIDE_ANSWER = "Mock side answer"


def find(text: str) -> tuple[Scenario | None, int | None]:
    """The scenario named by the last `SCEN_<NAME>` marker in `text` (a resumed session
    holds the first prompt too), and the `LINES=` value."""
    import re

    m = re.findall(r"SCEN_([A-Z]+)", text)
    lines = re.search(r"LINES=(\d+)", text)
    scen = BY_NAME.get(m[-1].lower()) if m else None
    return scen, int(lines.group(1)) if lines else None


def turn_for(scen: Scenario, tool_results: int) -> Turn:
    """The turn to serve once `tool_results` tool results are in the conversation."""
    done = 0
    for turn in scen.turns:
        if done >= tool_results:
            return turn
        done += len(turn.tools)
    return scen.turns[-1]
