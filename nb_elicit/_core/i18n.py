"""nb_elicit's own texts on forms, cards and records, in English and Chinese.

The language is, in order: what :func:`set_language` chose (``%mcp language``), the
environment variable ``NB_ELICIT_LANG``, then the locale (``LC_ALL``, ``LC_MESSAGES``,
``LANG``, ``LANGUAGE``): a locale starting with ``zh`` gives Chinese, anything else English.
Text from servers is never translated. Pure: no ipywidgets, no mcp.
"""

from __future__ import annotations

import os

from .kernel import part

__all__ = ["LANGUAGES", "duration", "language", "set_language", "t"]

LANGUAGES = ("en", "zh")
ENV_LANG = "NB_ELICIT_LANG"


class ChosenLanguage:
    """The language :func:`set_language` chose (None: automatic): a part of the kernel's
    owner (:mod:`.kernel`)."""

    def __init__(self) -> None:
        self.lang: str | None = None

#: key: (English, Chinese). Placeholders are filled with str.format.
TEXTS: dict[str, tuple[str, str]] = {
    # MCP Apps: a server's own interface, shown with its tool's result
    "app_shown": ("An app of {server} · {what} is shown here (live while the kernel runs).",
                  "此处显示 {server} · {what} 的应用（内核运行期间可交互）。"),
    "app_refused": ("The tool's app is not shown: {error}", "未显示该工具的应用：{error}"),
    "framework_session_failed": ("{server}: the framework's session failed ({error})",
                                 "{server}：框架的会话失败（{error}）"),
    "app_ended_closed": ("The app ended: the connection {server!r} was closed.",
                         "应用已结束：连接 {server!r} 已关闭。"),
    "app_ended_off": ("The app ended: apps were turned off for {server!r}.",
                      "应用已结束：已为 {server!r} 关闭应用。"),
    "app_ended_asked": ("The app ended: it asked to close.", "应用已结束：它请求关闭。"),
    "app_ended_frame": ("The app ended: its frame was closed.", "应用已结束：它的框架已关闭。"),
    "app_ended_elsewhere": ("The app ended: it was shown again (a reloaded page, or a second "
                            "view), and an app runs in one page only; call the tool again.",
                            "应用已结束：它被再次显示（页面重新加载，或第二个视图），而应用只在一个"
                            "页面中运行；请再次调用该工具。"),
    "app_ended_cap": ("The app ended: {most} apps of {server!r} are live at most, and newer "
                      "ones came.",
                      "应用已结束：{server!r} 最多同时运行 {most} 个应用，且已有更新的应用。"),
    "app_called": ("The app called {tool}.", "应用调用了 {tool}。"),
    "app_called_again": ("The app called {tool} {n} times.", "应用调用了 {tool} {n} 次。"),
    "app_called_failed": ("The app called {tool}, which failed: {error}",
                          "应用调用了 {tool}，调用失败：{error}"),
    "app_asks_link": ("The app of {tool} sent this link.", "{tool} 的应用发来了这个链接。"),
    "app_link_what": ("a link the app asks to open", "应用请求打开的链接"),
    "app_link_refused": ("The app asked to open a link that nb_elicit refuses: {error}",
                         "应用请求打开的链接被 nb_elicit 拒绝：{error}"),
    "app_link_opened": ("You agreed to open {url}.", "您同意打开 {url}。"),
    "app_link_declined": ("You did not open {url}.", "您没有打开 {url}。"),
    "app_message": ("The app says: {text}", "应用消息：{text}"),
    "app_asks_download": ("The app of {tool} sent this file.", "{tool} 的应用发来了这个文件。"),
    "app_download_what": ("a file the app asks to save", "应用请求保存的文件"),
    "app_download_saved": ("You agreed to save {name}.", "您同意保存 {name}。"),
    "app_download_declined": ("You did not save {name}.", "您没有保存 {name}。"),
    "app_download_refused": ("The app asked to save a file that nb_elicit refuses: {error}",
                             "应用请求保存的文件被 nb_elicit 拒绝：{error}"),
    "asks_download": ("{server} asks to save a file", "{server} 请求保存文件"),
    "download_save": ("Save", "保存"),
    "download_save.tip": ("Show the file's link, to save it", "显示文件链接以便保存"),
    "download_about": ("{mime}, {size}; nothing is saved until you agree",
                       "{mime}，{size}；您同意之前不会保存任何内容"),
    "download_link": ("Save {name}", "保存 {name}"),
    "download_consented": ("You agreed: the link to the file is below.",
                           "您已同意：文件链接在下方。"),
    "app_context": ("The app set its context for the model (result.model_context).",
                    "应用设置了给模型的上下文（result.model_context）。"),
    "app_context_again": ("The app set its context for the model {n} times; the last is kept "
                          "(result.model_context).",
                          "应用设置了给模型的上下文 {n} 次；"
                          "保留最近一次（result.model_context）。"),
    "app_asks_permissions": ("The app of {tool} asks for these permissions before it starts.",
                             "{tool} 的应用在启动前请求以下权限。"),
    "app_permissions_granted": ("You gave the app: {names}.", "您授予了应用：{names}。"),
    "app_permissions_none": ("The app runs with no permission.",
                             "应用在没有任何权限的情况下运行。"),
    "asks_permissions": ("{server} asks for permissions for its app", "{server} 为其应用请求权限"),
    "permission_camera": ("your camera", "您的摄像头"),
    "permission_microphone": ("your microphone", "您的麦克风"),
    "permission_geolocation": ("your location", "您的位置"),
    "permission_clipboardWrite": ("writing to your clipboard", "写入您的剪贴板"),
    "permissions_allow": ("Allow", "允许"),
    "permissions_allow.tip": ("Start the app with the permissions ticked",
                              "以勾选的权限启动应用"),
    "permissions_about": ("The app starts once you answer; without Allow it gets none of these.",
                          "您回答后应用才会启动；不点“允许”，它将得不到其中任何一项。"),
    "permissions_consented": ("You agreed: the app starts with {names}.",
                              "您已同意：应用以 {names} 启动。"),
    "permissions_nothing": ("nothing", "无"),
    "permissions_not_offered": ("Not offered: {names}. An app's frame has an origin of its own, "
                                "where the browser never lets a page use them.",
                                "不提供：{names}。应用的框架有自己独立的来源，"
                                "浏览器在那里从不允许网页使用它们。"),
    "app_permissions_not_offered": ("The app asked for {names}, which nb_elicit does not offer: "
                                    "the browser never lets an app's frame use them.",
                                    "应用请求了 {names}，nb_elicit 不提供：浏览器从不允许应用的框架"
                                    "使用它们。"),
    # following a task (the runtime; the card's own texts are with the card's)
    "task_lost": ("the server no longer knows the task {task} ({reason})",
                  "服务器已不再知道任务 {task}（{reason}）"),
    "task_no_answer": ("the server did not answer in time", "服务器未及时回答"),
    "task_detached_call": ("detached: the task {task} keeps running on the server; {hint} attaches "
                           "to it again",
                           "已分离：任务 {task} 在服务器上继续运行；用 {hint} 可再次连上"),
    "task_cancelled": ("the task {task} was cancelled", "任务 {task} 已取消"),
    "task_failed": ("the task {task} failed: {reason}", "任务 {task} 失败：{reason}"),
    "task_unknown_tool": ("a task", "一个任务"),
    "task_not_known": ("this kernel knows no task {task} of {name}",
                       "此内核不知道 {name} 的任务 {task}"),
    "task_session_not_open": ("{name} has no session of this task's protocol open now; "
                              "%mcp task {name} {task} attaches to it",
                              "{name} 现在没有打开此任务所用协议的会话；%mcp task {name} {task} "
                              "可连上它"),
    "task_other_server": ("the task {task} runs on {saved}, but {name} is connected to {now}; "
                          "connect {name} to that server to attach to it (%mcp tasks --forget "
                          "{name} {task} drops it)",
                          "任务 {task} 在 {saved} 上运行，但 {name} 连接的是 {now}；请将 {name} "
                          "连接到该服务器后再连上它（%mcp tasks --forget {name} {task} 可删除它）"),
    "task_followed_elsewhere": ("the task {task} is followed by another kernel ({kernel}); "
                                "Detach it there first",
                                "任务 {task} 正由另一个内核（{kernel}）跟踪；请先在那里分离它"),
    "task_no_tasks": ("{server} runs no tasks (it declared neither tasks shape)",
                      "{server} 不运行任务（它未声明任何一种任务形式）"),
    "task_shape_2025": ("MCP 2025-11-25 tasks", "MCP 2025-11-25 任务"),
    "task_shape_extension": ("MCP tasks extension (2026-07-28)", "MCP 任务扩展（2026-07-28）"),
    # the trust card (a server of a project file, before it starts)
    "trust_asks": ("Start a server from a project file?", "启动项目文件中的服务器？"),
    "trust_message": ("A file of this project sets up the server {name!r}. Nothing has "
                      "started yet.",
                      "此项目中的一个文件设置了服务器 {name!r}。尚未启动任何内容。"),
    "trust_file": ("from", "来自"),
    "trust_command": ("command", "命令"),
    "trust_as_written": ("as written", "文件中的写法"),
    "trust_cwd": ("runs in", "运行目录"),
    "trust_env": ("env", "环境变量"),
    "trust_env_file": ("env file", "环境变量文件"),
    "trust_env_file_keys": ("{file} (its keys, read now: {keys})",
                            "{file}（其键，现已读取：{keys}）"),
    "trust_link": ("a link to", "链接到"),
    "trust_link_here": ("{target} (judged here, where its servers run)",
                        "{target}（在此处判断：其服务器在此运行）"),
    "trust_url": ("URL", "URL"),
    "trust_headers": ("headers to {host}", "发往 {host} 的请求头"),
    "trust_transport": ("transport", "传输方式"),
    "trust_signin": ("sign-in", "登录"),
    "trust_signin_mode": ("mode {mode} (its {entry_key} settings)",
                          "模式 {mode}（其 {entry_key} 设置）"),
    "trust_signin_default": ("mode auto (the file sets none): nothing is sent until the server "
                             "asks, then a sign-in card asks you",
                             "模式 auto（文件未设置）：服务器要求之前不发送任何内容，"
                             "之后由登录卡片询问您"),
    "trust_signin_client": ("client ID {id}", "客户端 ID {id}"),
    "trust_signin_metadata": ("client ID document {url}", "客户端 ID 文档 {url}"),
    "trust_signin_issuer": ("authorization server {host} (issuer {url})",
                            "授权服务器 {host}（颁发者 {url}）"),
    "trust_signin_idp": ("identity provider {host} (token endpoint {url})",
                         "身份提供方 {host}（令牌端点 {url}）"),
    "trust_signin_idp_client": ("identity provider client ID {id}", "身份提供方客户端 ID {id}"),
    "trust_signin_scope": ("scope {scope}", "范围 {scope}"),
    "trust_signin_env": ("{name} (environment variable)", "{name}（环境变量）"),
    "trust_signin_file": ("{name} (file)", "{name}（文件）"),
    "trust_signin_client_secret": ("the client secret", "客户端密钥"),
    "trust_signin_private_key": ("the private key", "私钥"),
    "trust_signin_id_token": ("the ID token", "ID 令牌"),
    "trust_signin_idp_client_secret": ("the identity provider's client secret",
                                       "身份提供方的客户端密钥"),
    "trust_signin_sent": ("{source}: {what}, sent to {host}", "{source}：{what}，发往 {host}"),
    "trust_signin_sent_found": ("{source}: {what}, sent to the authorization server that "
                                "{host} names", "{source}：{what}，发往 {host} 指定的授权服务器"),
    "trust_signin_signs": ("{source}: {what}, signs what is sent to {host}",
                           "{source}：{what}，签署发往 {host} 的内容"),
    "trust_signin_signs_found": ("{source}: {what}, signs what is sent to the authorization "
                                 "server that {host} names",
                                 "{source}：{what}，签署发往 {host} 指定的授权服务器的内容"),
    "trust_inputs": ("inputs", "输入"),
    "trust_input_secret": ("secret", "机密"),
    "trust_input_default": ("default {value}", "默认 {value}"),
    "trust_input_options": ("one of {options}", "可选 {options}"),
    "trust_input_undefined": ("not in \"inputs\"", "不在 \"inputs\" 中"),
    "trust_input_given": ("given before in this kernel: sent again without asking",
                          "本内核中已给出：将不再询问即发送"),
    "trust_input_from_env": ("from {variable}: sent without asking",
                             "来自 {variable}：将不询问即发送"),
    "trust_none": ("(none)", "（无）"),
    "trust_hides": ("This project entry hides your own {name!r} of {file}.",
                    "此项目条目遮盖了您自己在 {file} 中的 {name!r}。"),
    "trust_note": ("Start runs the command above; its ${{input:...}} values are asked for "
                   "after Start.\nStart is remembered for this entry until it, its inputs or its "
                   "env file's keys change.",
                   "“启动”运行上面的命令；其 ${{input:...}} 的值在“启动”后询问。\n"
                   "“启动”会为此条目记住，直到条目、其输入或其环境变量文件的键改变。"),
    "trust_note_http": ("Start connects to the URL above; its ${{input:...}} values are asked "
                        "for after Start.\nStart is remembered for this entry until it or its "
                        "inputs change.",
                        "“启动”连接上面的 URL；其 ${{input:...}} 的值在“启动”后询问。\n"
                        "“启动”会为此条目记住，直到条目或其输入改变。"),
    "trust_start": ("Start", "启动"),
    "trust_start.tip": ("Start this server now", "现在启动此服务器"),
    "trust_decline": ("Don't start", "不启动"),
    "trust_decline.tip": ("Say no: nothing starts (recorded as declined); the next connect "
                          "asks again", "拒绝：不启动任何内容（记为拒绝）；下次连接时会再次询问"),
    "trust_not_now": ("Not now", "暂不"),
    "trust_not_now.tip": ("Close without deciding: nothing starts (recorded as dismissed); the "
                          "next connect asks again",
                          "不作决定即关闭：不启动任何内容（记为关闭）；下次连接时会再次询问"),
    # an MCP App in a cell (the frame's own texts; what the app shows is its own)
    "app_title": ("MCP App", "MCP 应用"),
    "app_closed": ("The app was closed.", "应用已关闭。"),
    "app_left_page": ("The app left its page and was closed.", "应用离开了它的页面，已被关闭。"),
    "app_not_started": ("The app did not start.", "应用未能启动。"),
    "app_elsewhere": ("This app ran in an earlier page; call the tool again to see it here.",
                      "此应用曾在之前的页面中运行；请再次调用该工具以在此处查看。"),
    "app_fullscreen": ("Full screen", "全屏"),
    "app_fullscreen_asked": ("The app asks for full screen: click to show it so",
                             "应用请求全屏显示：点击即可全屏"),
    "app_exit_fullscreen": ("Exit full screen (Esc)", "退出全屏（Esc）"),
    "trust_started": ("Started.", "已启动。"),
    "trust_declined": ("Not started: you chose Don't start.", "未启动：您选择了“不启动”。"),
    "trust_dismissed": ("Not now: nothing was started.", "暂不：未启动任何内容。"),
    # a call that the server runs as a task (its card, its timeline, how often it is polled)
    "task_status_working": ("Running", "进行中"),
    "task_status_input_required": ("Needs your answer", "等您回答"),
    "task_status_completed": ("Done", "已完成"),
    "task_status_failed": ("Failed", "失败"),
    "task_status_cancelled": ("Cancelled", "已取消"),
    "task_id_line": ("task {id} · {shape}", "任务 {id} · {shape}"),
    "task_short_id": ("task {id}", "任务 {id}"),
    "task_details": ("details", "详情"),
    "task_whole_id": ("task id:", "任务 ID："),
    "task_protocol": ("protocol: {shape}", "协议：{shape}"),
    "task_protocol_status": ("status in the protocol: {status}", "协议中的状态：{status}"),
    "task_running": ("started {time} ago", "{time}前开始"),
    "task_cancel": ("Cancel task", "取消任务"),
    "task_cancel.tip": ("Ask the server to cancel this task", "请服务器取消此任务"),
    "task_detach": ("Detach", "分离"),
    "task_detach.tip": ("Stop following the task here; it keeps running on the server",
                        "不再在此跟踪该任务；它会在服务器上继续运行"),
    "task_cancel_sent": ("Cancel sent…", "已发送取消请求…"),
    "task_cancel_confirmed": ("Cancelled (the server confirmed)", "已取消（服务器已确认）"),
    "task_cancel_failed": ("Cancel failed: {reason}", "取消失败：{reason}"),
    "task_click_failed": ("nb_elicit could not send it ({error})", "nb_elicit 无法发送（{error}）"),
    "task_detach_failed": ("Detach failed: {reason}", "分离失败：{reason}"),
    "task_detached": ("Detached: the task keeps running on the server. {hint}",
                      "已分离：该任务会在服务器上继续运行。{hint}"),
    "task_ended_completed": ("Completed after {time}.", "{time} 后完成。"),
    "task_ended_failed": ("Failed after {time}.", "{time} 后失败。"),
    "task_ended_failed_error": ("Failed after {time}: {error}", "{time} 后失败：{error}"),
    "task_ended_cancelled": ("Cancelled after {time}.", "{time} 后取消。"),
    "task_ended_cancel_confirmed": ("Cancelled (the server confirmed) after {time}.",
                                    "{time} 后已取消（服务器已确认）。"),
    "task_ended_other": ("Stopped following after {time}; the last status was “{status}”.",
                         "{time} 后停止跟踪；最后的状态为“{status}”。"),
    "task_unknown_status_first": ("The server reported an unknown task status {status!r}; "
                                  "it is ignored.",
                                  "服务器报告了未知的任务状态 {status!r}；已忽略。"),
    "task_unknown_status": ("The server reported an unknown task status {status!r} after "
                            "“{previous}”; it is ignored.",
                            "服务器在“{previous}”之后报告了未知的任务状态 {status!r}；已忽略。"),
    "task_after_final": ("The server reported “{status}” after “{previous}”, which is final; "
                         "it is ignored.",
                         "服务器在最终状态“{previous}”之后报告了“{status}”；已忽略。"),
    "task_problems_more": ("{n} status reports ignored so far.", "目前已忽略 {n} 个状态报告。"),
    "task_notices_more": ("… and {n} more notices", "… 另有 {n} 条提示"),
    "task_omitted": ("… {n} more updates not kept", "… 另有 {n} 条更新未保留"),
    "poll_clamped": ("The server asked for {ms} ms between polls; polling every {s} s.",
                     "服务器要求每 {ms} 毫秒轮询一次；现每 {s} 秒轮询一次。"),
    "poll_invalid": ("The server asked for {value} as the poll interval, which is not a number "
                     "of milliseconds; polling every {s} s.",
                     "服务器给出的轮询间隔 {value} 不是毫秒数；现每 {s} 秒轮询一次。"),
    # buttons and their tooltips
    "submit": ("Submit", "提交"),
    "submit.tip": ("Send these answers", "发送这些回答"),
    "decline": ("Decline", "拒绝"),
    "decline.tip": ("Say no to this request", "拒绝此请求"),
    "dismiss.tip": ("Dismiss", "关闭"),
    "open": ("Open", "打开"),
    "open.tip": ("Agree to open {host}: then the link appears", "同意打开 {host}：随后会出现链接"),
    "retry": ("Retry", "重试"),
    "retry.tip": ("Run the call again (when you are done on those pages)",
                  "重新运行调用（在这些网页上完成后）"),
    "give_up": ("Give up", "放弃"),
    "give_up.tip": ("Do not run the call", "不运行此调用"),
    "yes": ("Yes", "是"),
    "no": ("No", "否"),
    # headers
    "asks": ("{server} asks:", "{server} 请求："),
    "asks_url": ("{server} asks you to open a web page:", "{server} 请求您打开一个网页："),
    "asks_pages": ("{server} needs you to open {pages} before {what} can run:",
                   "{server} 需要您先打开{pages}，{what} 才能运行："),
    "a_page": ("a web page", "一个网页"),
    "pages": ("{n} web pages", "{n} 个网页"),
    # statuses
    "submitted": ("Submitted.", "已提交。"),
    "declined": ("Declined.", "已拒绝。"),
    "dismissed": ("Dismissed.", "已关闭。"),
    "fix_fields": ("Please fix {n} field{s}; nothing was sent.",
                   "请修正 {n} 个字段；尚未发送任何内容。"),
    "withdrew": ("{server} withdrew this request.", "{server} 撤回了此请求。"),
    "withdrew_task_cancelled": ("You cancelled its task: this request is withdrawn.",
                                "您取消了它所在的任务：此请求已撤回。"),
    "withdrew_task_detached": ("You detached from its task: this request is withdrawn.",
                               "您已从它所在的任务分离：此请求已撤回。"),
    "disconnected": ("{server} disconnected.", "{server} 已断开连接。"),
    "not_answered": ("Not answered.", "未回答。"),
    "waiting": ("waiting {time}", "已等待 {time}"),
    "left": ("{time} left", "剩余 {time}"),
    "timeout_paused": ("timeout paused while you answer", "您作答期间超时计时已暂停"),
    "backlog_one": ("1 more request from {server} is waiting.",
                    "还有 1 个来自 {server} 的请求在等待。"),
    "backlog_many": ("{n} more requests from {server} are waiting.",
                     "还有 {n} 个来自 {server} 的请求在等待。"),
    "cancel_waiting": ("Cancel waiting requests", "取消等待中的请求"),
    "cancel_waiting.tip": ("Answer cancel to every request of this server that is still waiting",
                           "对该服务器所有仍在等待的请求回答“取消”"),
    "seconds": ("{n} s", "{n} 秒"),
    "minutes": ("{m} min {s:02d} s", "{m} 分 {s:02d} 秒"),
    "waiting_call": ("Waiting for {server} · {what} ({elapsed} so far{left})…",
                     "正在等待 {server} · {what}（已等待 {elapsed}{left}）…"),
    "left_suffix": (", {time} left", "，剩余 {time}"),
    "progress_done": ("Done (100%)", "完成（100%）"),
    "consented": ("You agreed to open the page; use the link above. nb_elicit does not see "
                  "what you do there.",
                  "您已同意打开该网页；请使用上方的链接。nb_elicit 看不到您在那里的操作。"),
    "open_link": ("Open {host} in a new tab ↗", "在新标签页中打开 {host} ↗"),
    "page_done": ("✓ {server} reports this is done.", "✓ {server} 报告此操作已完成。"),
    "retrying": ("Retrying…", "正在重试…"),
    "all_done": ("{server} reports every page done; retrying…",
                 "{server} 报告所有网页均已完成；正在重试…"),
    "secret_warning": (
        "⚠ This form seems to ask for a secret ({labels}). MCP servers must not ask for "
        "passwords, keys or payment details in a form; a trustworthy server sends you to its "
        "own web page instead. Decline unless you are sure. What you type there is hidden and "
        "never prefilled.",
        "⚠ 此表单似乎在索取机密信息（{labels}）。MCP 服务器不得通过表单索取密码、密钥或支付信息；"
        "可信的服务器会引导您前往它自己的网页。除非您确定，否则请拒绝。您在该处输入的内容会被隐藏，"
        "且从不预先填写。"),
    # the sign-in card
    "asks_signin": ("{server} asks you to sign in:", "{server} 请求您登录："),
    "signin_message": ("To use {server}, sign in at {host}. Sign in opens its page in a new "
                       "tab; nothing opens before you click it.",
                       "要使用 {server}，请在 {host} 登录。“登录”会在新标签页中打开其页面；"
                       "在您点击之前不会打开任何内容。"),
    "signin_sees": ("The authorization server that will see you:", "将会看到您的授权服务器："),
    "sign_in": ("Sign in", "登录"),
    "sign_in.tip": ("Open the sign-in page of {host} in a new tab",
                    "在新标签页中打开 {host} 的登录页面"),
    "signin_cancel": ("Cancel", "取消"),
    "signin_cancel.tip": ("Do not sign in", "不登录"),
    "signin_waiting": ("Finish signing in at {host} in the new tab; this cell goes on by "
                       "itself once you have.",
                       "请在新标签页中完成在 {host} 的登录；完成后此单元格会自行继续。"),
    "signin_paste": ("If the page you land on cannot load (a remote notebook), paste its "
                     "address here:",
                     "如果登录后打开的页面无法加载（远程笔记本），请将其地址粘贴到这里："),
    "signin_paste_button": ("Finish sign-in", "完成登录"),
    "signin_paste_bad": ("That address carries no sign-in answer (no code= in it).",
                         "该地址不含登录结果（其中没有 code=）。"),
    "signin_paste_late": ("This sign-in is already over.", "此次登录已经结束。"),
    "signed_in": ("✓ Signed in to {server}.", "✓ 已登录 {server}。"),
    "signin_cancelled": ("Sign-in cancelled.", "已取消登录。"),
    "signin_failed": ("Sign-in failed: {reason}", "登录失败：{reason}"),
    "signin_page_done": ("Signed in to {server}. You can close this tab.",
                         "已登录 {server}。您可以关闭此标签页。"),
    "signin_page_bad": ("This is not a sign-in answer nb_elicit is waiting for.",
                        "这不是 nb_elicit 正在等待的登录结果。"),
    "signin_page_late": ("This sign-in is already over. You can close this tab.",
                         "此次登录已经结束。您可以关闭此标签页。"),
    "required_sr": (" (required)", "（必填）"),
    "choose": ("Choose…", "请选择…"),
    "clear": ("Clear", "清除"),
    "clear.tip": ("Leave “{label}” unanswered", "不回答“{label}”"),
    # URL warnings
    "warn_userinfo": ("The link has text before an @ ({before!r}); it really goes to {host}.",
                      "链接中 @ 前面有文字（{before!r}）；它实际指向 {host}。"),
    "warn_punycode": ("The address is written in Punycode ({host}): it may imitate another "
                      "site's name.",
                      "该地址使用 Punycode 编写（{host}）：它可能在冒充其他网站的名称。"),
    "warn_unicode": ("The address uses non-ASCII letters ({host}): it may imitate another "
                     "site's name.",
                     "该地址使用了非 ASCII 字母（{host}）：它可能在冒充其他网站的名称。"),
    "warn_ip": ("The address is a bare IP address ({host}), not a site name.",
                "该地址是一个裸 IP 地址（{host}），而不是网站名称。"),
    # the transcript
    "transcript_asked": ("{server} asked:", "{server} 请求："),
    "hook_what": ("question", "提问"),
    "transcript_page": ("Page:", "网页："),
    "transcript_error": ("{server} · {what} reported an error:", "{server} · {what} 报告了错误："),
    "transcript_image": ("image from {server}", "来自 {server} 的图片"),
    "transcript_sent": ("sent {value}", "发送的值：{value}"),
    # a result, and a page opened, as the live view and the transcript tell them
    "result_from": ("Result from {server}:", "来自 {server} 的结果："),
    # the word before a notice, by its kind
    "notice_info": ("Note:", "提示："),
    "notice_warning": ("Warning:", "警告："),
    "notice_error": ("Error:", "错误："),
    # number hints
    "hint_whole": ("whole number", "整数"),
    "hint_number": ("number", "数字"),
    "hint_then": ("{first}, {then}", "{first}，{then}"),
    "hint_range": ("{lo} to {hi}", "{lo} 到 {hi}"),
    "hint_both": ("{lower} and {upper}", "{lower} 且{upper}"),
    "hint_min": ("at least {lo}", "至少 {lo}"),
    "hint_max": ("at most {hi}", "至多 {hi}"),
    "hint_more": ("more than {lo}", "大于 {lo}"),
    "hint_less": ("less than {hi}", "小于 {hi}"),
    "hint_multiple": ("a multiple of {step}", "{step} 的倍数"),
    # validation
    "v_email": ("Enter an email address, like name@example.com.",
                "请输入电子邮件地址，例如 name@example.com。"),
    "v_uri": ("Enter a full address with a scheme, like https://example.com.",
              "请输入带协议的完整地址，例如 https://example.com。"),
    "v_date": ("Enter a date as YYYY-MM-DD.", "请按 YYYY-MM-DD 格式输入日期。"),
    "v_date_time": ("Enter a date and time with a timezone, like 2025-01-31T14:30:00Z.",
                    "请输入带时区的日期和时间，例如 2025-01-31T14:30:00Z。"),
    "v_string": ("Enter text.", "请输入文本。"),
    "v_integer": ("Enter a whole number.", "请输入整数。"),
    "v_number": ("Enter a number.", "请输入数字。"),
    "v_decimal_point": ("Enter a number with a decimal point (not a comma): {example}",
                        "请用小数点（而非逗号）输入数字：{example}"),
    "v_no_commas": ("Enter the number without commas: {example}",
                    "请输入不带逗号的数字：{example}"),
    "v_boolean": ("Choose yes or no.", "请选择是或否。"),
    "v_array": ("Choose from the list.", "请从列表中选择。"),
    "v_not_object": ("The answer must be an object of field values.",
                     "回答必须是由字段值组成的对象。"),
    "v_not_field": ("This is not a field of the form.", "这不是表单中的字段。"),
    "v_null": ("Leave the field out instead of sending null.", "请不要发送 null，直接省略该字段。"),
    "v_required": ("This field is required.", "此字段为必填项。"),
    "v_pattern": ("Enter a value that matches the pattern {pattern}.",
                  "请输入符合模式 {pattern} 的值。"),
    "v_pattern_described": ("Enter a value as described: {description}",
                            "请按说明输入：{description}"),
    "v_pattern_titled": ("Enter a valid {title}.", "请输入有效的{title}。"),
    "v_pattern_timeout": ("This value could not be checked against the pattern {pattern} in "
                          "time.", "无法及时按模式 {pattern} 检查此值。"),
    "v_min_length": ("Enter at least {n} character{s}.", "请至少输入 {n} 个字符。"),
    "v_max_length": ("Enter at most {n} character{s}.", "请最多输入 {n} 个字符。"),
    "v_minimum": ("Enter a number of at least {n}.", "请输入不小于 {n} 的数字。"),
    "v_maximum": ("Enter a number of at most {n}.", "请输入不大于 {n} 的数字。"),
    "v_more_than": ("Enter a number greater than {n}.", "请输入大于 {n} 的数字。"),
    "v_less_than": ("Enter a number less than {n}.", "请输入小于 {n} 的数字。"),
    "v_multiple_of": ("Enter a multiple of {n}.", "请输入 {n} 的倍数。"),
    "v_min_items": ("Choose at least {n}.", "请至少选择 {n} 项。"),
    "v_max_items": ("Choose at most {n}.", "请最多选择 {n} 项。"),
    "v_unique": ("Choose each option only once.", "每个选项只能选择一次。"),
    "v_listed_items": ("Choose only listed options.", "只能选择列出的选项。"),
    "v_listed": ("Choose one of the listed options.", "请选择列出的选项之一。"),
    "v_not_allowed": ("This value is not allowed.", "不允许使用此值。"),
    # the notices a call's cell shows about its requests (nb_elicit's words around the server's)
    "n_refused_form": ("{server} sent a form nb_elicit cannot show, so it answered with an "
                       "error: {detail}",
                       "{server} 发送了 nb_elicit 无法显示的表单，因此已回复错误：{detail}"),
    "n_refused_request": ("{server} sent a request nb_elicit cannot show, so it answered with "
                          "an error: {detail}",
                          "{server} 发送了 nb_elicit 无法显示的请求，因此已回复错误：{detail}"),
    "n_failed": ("nb_elicit failed while showing a request from {server}, so it answered with "
                 "an error: {error}",
                 "nb_elicit 在显示来自 {server} 的请求时出错，因此已回复错误：{error}"),
    # (a question asked inside a 2026-07-28 task: its tasks/update has no place for an error)
    "n_refused_form_cancel": ("{server} sent a form nb_elicit cannot show, so it answered "
                              "cancel: {detail}",
                              "{server} 发送了 nb_elicit 无法显示的表单，因此回答了“取消”："
                              "{detail}"),
    "n_refused_request_cancel": ("{server} sent a request nb_elicit cannot show, so it answered "
                                 "cancel: {detail}",
                                 "{server} 发送了 nb_elicit 无法显示的请求，因此回答了“取消”："
                                 "{detail}"),
    "n_failed_cancel": ("nb_elicit failed while showing a request from {server}, so it answered "
                        "cancel: {error}",
                        "nb_elicit 在显示来自 {server} 的请求时出错，因此回答了“取消”：{error}"),
    "n_ended_cancel": ("nb_elicit ended a request from {server} by itself, so it answered "
                       "cancel.",
                       "nb_elicit 自行结束了来自 {server} 的请求，因此回答了“取消”。"),
    "n_request_one": ("1 request", "1 个请求"),
    "n_requests": ("{n} requests", "{n} 个请求"),
    "n_muted": ("{server} is muted, so nb_elicit answered cancel to {requests}; to see its "
                "requests again: %mcp unmute {server}",
                "{server} 已被静音，因此 nb_elicit 对 {requests}回答了“取消”；"
                "要重新查看其请求：%mcp unmute {server}"),
    "n_secrets_refused": ("{server} asked in a form for what looks like a secret, and this "
                          "connection refuses such forms, so nb_elicit declined: {fields}",
                          "{server} 在表单中索取看似机密的信息，而此连接拒绝此类表单，"
                          "因此 nb_elicit 已拒绝：{fields}"),
    "n_url_policy": ("{server} asked you to open a web page, and the respond policy ({source}) "
                     "answered {action}: {url}",
                     "{server} 请求您打开一个网页，应答策略（{source}）回答了 {action}：{url}"),
    "n_file_policy": ("{server}'s app asked you to save a file, and the respond policy "
                      "({source}) answered {action}: {url}",
                      "{server} 的应用请求您保存一个文件，应答策略（{source}）回答了 "
                      "{action}：{url}"),
    "n_file_no_policy": ("{server}'s app asked you to save a file, and a respond policy never "
                         "consents to a file, so nb_elicit answered cancel: {url}",
                         "{server} 的应用请求您保存一个文件，而应答策略从不代您同意保存文件，"
                         "因此 nb_elicit 回答了“取消”：{url}"),
    "n_permission_policy": ("{server}'s app asked for permissions, and the respond policy "
                            "({source}) answered {action}: {url}",
                            "{server} 的应用请求权限，应答策略（{source}）回答了 {action}：{url}"),
    "n_permission_no_policy": ("{server}'s app asked for permissions, and a respond policy never "
                               "grants one, so nb_elicit answered cancel: {url}",
                               "{server} 的应用请求权限，而应答策略从不代您授予权限，"
                               "因此 nb_elicit 回答了“取消”：{url}"),
    "n_url_no_policy": ("{server} asked you to open a web page, and a respond policy never "
                        "consents to a web page, so nb_elicit answered cancel: {url}",
                        "{server} 请求您打开一个网页，而应答策略从不代您同意打开网页，"
                        "因此 nb_elicit 回答了“取消”：{url}"),
    "n_replay_changed": ("{server} · {what} asked with a form that changed since {name} was "
                         "recorded, so nb_elicit did not answer from the recording and the "
                         "respond policy answers instead: schema {then} then, {now} now",
                         "{server} · {what} 的表单自录制 {name} 以来已改变，因此 nb_elicit "
                         "没有按录制回答，改由应答策略回答：当时的模式为 {then}，现在为 {now}"),
    "n_replay_misfit": ("The answer recorded in {name} for {server} · {what} does not fit the "
                        "form, so the respond policy answers instead: {detail}",
                        "{name} 中为 {server} · {what} 录制的回答与表单不符，"
                        "因此改由应答策略回答：{detail}"),
    "n_replayed": ("Answered {action} from the recording {name}.",
                   "已按录制 {name} 回答 {action}。"),
    "n_by_policy": ("Answered {action} by the respond policy ({source}).",
                    "已由应答策略（{source}）回答 {action}。"),
    "n_policy_misfit": ("{server} asked: {message}\nThe respond policy's answer does not fit "
                        "this form, so nb_elicit answered cancel: {detail}",
                        "{server} 请求：{message}\n应答策略的回答与此表单不符，"
                        "因此 nb_elicit 回答了“取消”：{detail}"),
    "n_rate_limited": ("{server} asks too often (limit {limit}), so nb_elicit answered cancel "
                       "to {requests} without showing them and shows the next one in "
                       "{seconds} s; to change the limit: %mcp limit {server} RATE|off",
                       "{server} 请求过于频繁（限制 {limit}），因此 nb_elicit 未显示便对 "
                       "{requests}回答了“取消”，将在 {seconds} 秒后显示下一个；"
                       "要更改限制：%mcp limit {server} RATE|off"),
    "n_backlog_full": ("{server} asked more than nb_elicit keeps waiting ({most} requests "
                       "already waited), so it answered cancel to {requests} without showing "
                       "them.",
                       "{server} 的请求超过了 nb_elicit 可保留等待的数量（已有 {most} 个请求在"
                       "等待），因此未显示便对 {requests}回答了“取消”。"),
    "n_cancelled_waiting": ("You cancelled {requests} from {server} that waited.",
                            "您取消了来自 {server} 的 {requests}（均在等待中）。"),
    "n_no_frontend": ("No widget frontend is attached (nbclient, nbconvert and papermill show "
                      "no widgets), so nb_elicit answered cancel to {requests} after {seconds} "
                      "s; to answer without a person, set a policy with %mcp respond {server} "
                      "decline|cancel|accept JSON, nb_elicit.respond(...), or the environment "
                      "variable NB_ELICIT_RESPOND.",
                      "没有连接小部件前端（nbclient、nbconvert 和 papermill 不显示小部件），"
                      "因此 nb_elicit 在 {seconds} 秒后对 {requests}回答了“取消”；若要在无人时"
                      "作答，请用 %mcp respond {server} decline|cancel|accept JSON、"
                      "nb_elicit.respond(...) 或环境变量 NB_ELICIT_RESPOND 设置策略。"),
    "app_not_shown_headless": ("No widget frontend is attached, so the app of {server} · {tool} "
                               "is not shown.",
                               "没有连接小部件前端，因此不显示 {server} · {tool} 的应用。"),
    "n_kernel_blocked": ("{server} asked: {message}\nThe kernel is blocked in {sync}, where no "
                         "form can be answered, so nb_elicit answered cancel; use {instead} "
                         "instead.",
                         "{server} 请求：{message}\n内核正阻塞在 {sync} 中，无法回答任何表单，"
                         "因此 nb_elicit 回答了“取消”；请改用 {instead}。"),
    "n_kernel_blocked_more": ("Further requests of {server} while the kernel is blocked are "
                              "answered the same way (%mcp history lists each).",
                              "内核阻塞期间 {server} 的后续请求也照此回答"
                              "（%mcp history 列出每一个）。"),
    # who asks through an unlabelled hook: the name the server gives itself, a claim
    "self_named": ('"{name}" (named by the server)', "“{name}”（服务器自称）"),
    "n_page_refused": ("{server} listed a page nb_elicit will not show: {problem}",
                       "{server} 列出了 nb_elicit 不会显示的网页：{problem}"),
    # how a request ended when nb_elicit itself failed (the runtime's boundary)
    "failed_request": ("nb_elicit failed while showing this request; the server was told.",
                       "nb_elicit 在显示此请求时出错；已告知服务器。"),
    "handler_failed": ("nb_elicit could not take this answer ({error}); nothing was sent and "
                       "nothing you typed is lost: change it and try again, or Decline.",
                       "nb_elicit 无法接收此回答（{error}）；尚未发送任何内容，"
                       "您输入的内容也没有丢失：请修改后重试，或选择拒绝。"),
}


def set_language(lang: str | None) -> str:
    """Choose ``"en"`` or ``"zh"`` for nb_elicit's own texts; None goes back to automatic."""
    if lang is not None:
        lang = lang.strip().lower()
        if lang in ("auto", ""):
            lang = None
        elif lang not in LANGUAGES:
            from .errors import InvalidArgument  # (lazily: the errors are told in these words)

            raise InvalidArgument(f"unknown language {lang!r}: use en, zh or auto")
    part(ChosenLanguage).lang = lang
    return language()


def language() -> str:
    """The language in use now: ``"en"`` or ``"zh"``."""
    chosen = part(ChosenLanguage).lang
    if chosen is not None:
        return chosen
    wanted = os.environ.get(ENV_LANG, "").strip().lower()
    if wanted in LANGUAGES:
        return wanted
    for name in ("LC_ALL", "LC_MESSAGES", "LANG", "LANGUAGE"):
        value = os.environ.get(name, "")
        if value:
            return "zh" if value.lower().startswith("zh") else "en"
    return "en"


def t(key: str, **values) -> str:
    """The text ``key`` in the current language, with ``values`` filled in."""
    english, chinese = TEXTS[key]
    return (chinese if language() == "zh" else english).format(**values)


def duration(seconds: float) -> str:
    """``12 s`` or ``2 min 05 s``, in the current language."""
    seconds = int(seconds)
    return (t("seconds", n=seconds) if seconds < 60 else
            t("minutes", m=seconds // 60, s=seconds % 60))
