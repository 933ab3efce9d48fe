"""tilecam verify: replay a GCG record through the rules engine and print a recount report.

Exit 0 when every score and running total agrees, 1 when something does not,
2 when the file cannot be read or holds no turn (the message names the file, the line and why).
"""
from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path


def add_arguments(p: argparse.ArgumentParser) -> None:
    from tilecam.scoring import AUTO, DISTRIBUTIONS, PROFILES

    p.add_argument("gcg", metavar="GAME.gcg", help="the game record")
    p.add_argument("--rules", default=AUTO, choices=[AUTO, *PROFILES],
                   help="rule profile (auto: NASPA, with the CSW 5-point challenge when the record "
                        "has challenge bonuses or a CSW #lexicon)")
    p.add_argument("--lang", help=f"tile set: {', '.join(DISTRIBUTIONS)} (default: the record's "
                                  "#tile-distribution, else its #lexicon's language, else en)")
    p.add_argument("--lexicon", metavar="FILE", help="word list to flag phonies (one word per line)")
    p.add_argument("--json", action="store_true", help="print one JSON object instead of a table")


def run(args: argparse.Namespace) -> int:
    from tilecam.scoring import DISTRIBUTIONS, LAYOUTS, TURNS_INFERRED, Lexicon, LexiconError, get_profile, report_json
    from tilecam.scoring.gcg import GcgError, choose_rules, gcg_lang, read_gcg, record_from_gcg

    path = Path(args.gcg)
    if args.lang is not None and args.lang not in DISTRIBUTIONS:
        print(f"tilecam verify: unknown --lang {args.lang!r}; choose one of {', '.join(DISTRIBUTIONS)}",
              file=sys.stderr)
        return 2
    try:
        gcg = read_gcg(path.read_bytes())
        lang = args.lang or gcg_lang(gcg.meta) or "en"
        dist = DISTRIBUTIONS[lang]
        rules = choose_rules(args.rules, gcg)
        layout = LAYOUTS["super"] if lang == "en-super" else None
        record, findings, line_nos = record_from_gcg(gcg, get_profile(rules), dist, layout, rules=rules,
                                                      within_set=False)  # recounted as it stands
    except OSError as exc:
        print(f"tilecam verify: cannot read {path}: {exc.strerror}", file=sys.stderr)
        return 2
    except GcgError as exc:
        print(f"tilecam verify: {path}: {exc}", file=sys.stderr)
        return 2
    if not record.events:  # nothing recounted is not "every score agrees"
        print(f"tilecam verify: {path}: no turns to recount (no '>player: ...' line)", file=sys.stderr)
        return 2
    lexicon = None
    if args.lexicon:
        try:
            lexicon = Lexicon.from_file(args.lexicon)
        except LexiconError as exc:
            print(f"tilecam verify: {exc}", file=sys.stderr)
            return 2

    report = report_json(record, findings, line_nos)
    if lexicon is not None:
        for move, ev in zip(report["moves"], record.events):
            if ev.kind == "play":
                move["phonies"] = lexicon.phonies(ev.words)
    # A score the engine does not give, a running total the file's own scores do not add up to, or
    # an entry (a play, an exchange, a rack) that puts more of a tile in the record than the set has.
    def said(what: str, recorded, engine, over_set: str | None = None) -> str:
        return over_set if what == "tiles" else f"{what} recorded {recorded}, engine {engine}"

    problems = sorted([(d["line_no"], d["player"], said(d["what"], d["claimed"], d["engine"], d["over_set"]))
                       for d in report["discrepancies"]]
                      + [(f["line_no"], f["player"], said(f["what"], f["recorded"], f["engine"]))
                         for f in report["cumulative_findings"]])
    if args.json:
        print(json.dumps(report, ensure_ascii=False))
        return 1 if problems else 0

    names = [p.name or p.nick for p in record.players]
    print(f"Recount of {path.name}: {' vs '.join(names)}  (rules {rules}, tiles {lang})")
    width = max(len(n) for n in names)
    print(f"{'#':>3} {'line':>5}  {'player':<{width}}  {'play':<34} {'claimed':>7} {'engine':>6} "
          f"{'agreed':>6}  totals")
    for move in report["moves"]:
        flag = "  <-- " if move["claimed"] is not None and move["engine"] is not None \
            and move["claimed"] != move["engine"] else ""
        flag += f"  <-- {move['over_set']}" if move["over_set"] else ""
        phony = f"  phony: {', '.join(move['phonies'])}" if move.get("phonies") else ""
        claimed = "" if move["claimed"] is None else move["claimed"]
        engine = "" if move["engine"] is None else move["engine"]
        totals = " : ".join(str(t) for t in move["totals"])
        print(f"{move['index'] + 1:>3} {move['line_no'] or '':>5}  {names[move['player']]:<{width}}  "
              f"{move['text'][:34]:<34} {claimed:>7} {engine:>6} {move['agreed']:>6}  {totals}{flag}{phony}")
    if problems:
        line_no, player, text = problems[0]
        print(f"\nFirst discrepancy: line {line_no} ({names[player]}): {text}")
        if len(problems) > 1:
            print(f"{len(problems)} discrepancies in all:")
            for line_no, _, text in problems:
                print(f"  line {line_no}: {text}")
    else:
        print("\nEvery score and running total agrees with the engine, and no play, exchange or rack holds "
              "more of a tile than the set has.")
    # scores that agree are no proof of who played them: a record whose turns were inferred says so
    if report["turns"]:
        print(f"Not sure who played which move: {report['turns']}.")
    print("Final: " + ", ".join(f"{n} {s}" for n, s in zip(names, report["final"]))
          + (f" ({TURNS_INFERRED})" if report["turns"] else ""))
    return 1 if problems else 0
