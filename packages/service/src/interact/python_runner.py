# Runs interact `python` code with Playwright for Python connected over CDP to the
# session's Chromium (no browser of its own). `page` is the session's current tab; the
# value of a final expression statement is written as JSON to WEBDATA_RESULT_FILE.
import ast
import json
import os
import sys
import traceback

from playwright.sync_api import sync_playwright


def find_page(context, target_id):
    pages = list(context.pages)
    for p in pages:
        session = context.new_cdp_session(p)
        try:
            if session.send("Target.getTargetInfo")["targetInfo"]["targetId"] == target_id:
                return p
        finally:
            session.detach()
    return pages[-1] if pages else context.new_page()


def render(value):
    if value is None:
        return None
    if isinstance(value, str):
        return value
    try:
        return json.dumps(value)
    except (TypeError, ValueError):
        return repr(value)


def main():
    code = sys.stdin.read()
    result_file = os.environ["WEBDATA_RESULT_FILE"]
    tree = ast.parse(code, "<interact>", "exec")
    last = None
    if tree.body and isinstance(tree.body[-1], ast.Expr):
        last = ast.Expression(tree.body.pop().value)
    with sync_playwright() as p:
        browser = p.chromium.connect_over_cdp(os.environ["WEBDATA_CDP_ENDPOINT"])
        context = browser.contexts[0]
        page = find_page(context, os.environ.get("WEBDATA_TARGET_ID", ""))
        sys.stderr.write("__WEBDATA_READY__\n")
        sys.stderr.flush()
        namespace = {"__name__": "__main__", "page": page, "context": context, "browser": browser, "playwright": p}
        try:
            exec(compile(tree, "<interact>", "exec"), namespace)
            value = eval(compile(last, "<interact>", "eval"), namespace) if last is not None else None
        except BaseException as err:  # report any failure of user code, then exit non-zero
            traceback.print_exc()
            with open(result_file, "w") as f:
                json.dump({"result": None, "error": f"{type(err).__name__}: {err}"}, f)
            sys.stdout.flush()
            os._exit(1)
        with open(result_file, "w") as f:
            json.dump({"result": render(value)}, f)
        sys.stdout.flush()
        sys.stderr.flush()
        # Leave without closing the CDP-connected browser: the session keeps running.
        os._exit(0)


if __name__ == "__main__":
    main()
