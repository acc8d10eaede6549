"""``reuseit experience list|clear``: show or forget the rules learnt per site."""

from __future__ import annotations

import argparse

from ..experience import DEFAULT_DIR, ExperienceStore, host_of


def cmd_list(args: argparse.Namespace) -> int:
    store = ExperienceStore(args.dir)
    hosts = [host_of(args.site)] if args.site else store.hosts()
    shown = 0
    for host in hosts:
        rules = store.rules(host)
        if not rules:
            continue
        shown += 1
        print(f"{host} ({len(rules)} rule{'s' if len(rules) != 1 else ''})")
        for r in rules:
            print(f"  - {r['rule']}")
            print(f"      uses {r.get('uses', 1)}, from {r.get('source', '?')}, {r.get('created', '?')}")
    if not shown:
        where = f" for {host_of(args.site)}" if args.site else ""
        print(f"no experience recorded{where} in {store.folder}")
    return 0


def cmd_clear(args: argparse.Namespace) -> int:
    store = ExperienceStore(args.dir)
    removed = store.clear(args.site)
    where = host_of(args.site) if args.site else "every site"
    print(f"removed {removed} rule{'s' if removed != 1 else ''} for {where} from {store.folder}")
    return 0


def register(sub: argparse._SubParsersAction[argparse.ArgumentParser]) -> None:
    p = sub.add_parser("experience", help="rules learnt from recovered and healed runs, per site (list, clear)")
    actions = p.add_subparsers(dest="experience_command", required=True)
    for name, func, text in (("list", cmd_list, "show the rules"), ("clear", cmd_clear, "forget the rules")):
        a = actions.add_parser(name, help=text)
        a.add_argument("--site", help="only this host (or a URL on it)")
        a.add_argument("--dir", default=DEFAULT_DIR, help=f"experience folder [{DEFAULT_DIR}]")
        a.set_defaults(func=func)
