//! Tasks (variant tasks), in both generations: the 2026-07-28 extension
//! `io.modelcontextprotocol/tasks` (SEP-2663), where the server answers a call with a task
//! (`resultType: "task"`) and the task's result comes inline in `tasks/get`, and 2025-11-25's
//! experimental tasks, where the client asks for a task (`params.task`) on a tool whose
//! `execution.taskSupport` is `"required"`, gets a `CreateTaskResult` (`{"task": …}`) and
//! fetches the result with `tasks/result`. Judged from the server's journal (the calls, the tasks
//! in their answers, `tasks/get`, `tasks/result`, `tasks/update`, `tasks/cancel`,
//! `notifications/cancelled`) and, for what reached the model, from the model stub's. What the
//! client declared is, in 2026-07-28, `extensions["io.modelcontextprotocol/tasks"]` (a client
//! that does not declare it is refused a task, -32021); in 2025-11-25 a client needs no
//! capability to use a server's tasks (its `tasks` capability is about tasks it serves itself).

use serde_json::Value;

use super::http::{decoded, http_header};
use super::results::{first_call, result_after};
use super::{probe, BOTH, HTTP_ONLY, LEGACY, MODERN};
use crate::observe::{Frame, Observations};
use crate::probe::{Declaration, Outcome, Verdict};
use crate::tasks::{EXTENSION_ID, FAIL_CANARY, INPUT_KEY, POLL_INTERVAL_MS, RESULT_CANARY, TASK_TOOLS, TOOL_TASK_FAIL, TOOL_TASK_INPUT, TOOL_TASK_LONG, TOOL_TASK_RESULT};
use crate::Era;

fn declared(o: &Observations) -> Declaration {
    match o.era() {
        Some(Era::Modern) => Declaration::from_bool(o.declares(&["extensions", EXTENSION_ID])),
        _ => Declaration::NoCapability,
    }
}

/// The first legacy revision with tasks (experimental, 2025-11-25).
const TASKS_SINCE: &str = "2025-11-25";

/// `judge`'s verdict where tasks exist; n/a in a legacy session that negotiated a revision older
/// than [`TASKS_SINCE`], where neither side could use them.
fn where_tasks_exist(o: &Observations, judge: fn(&Observations) -> Verdict) -> Verdict {
    match super::negotiated_before(o, TASKS_SINCE) {
        Some(version) => Verdict::new(Outcome::NotApplicable, format!("the session negotiated {version}; tasks exist since {TASKS_SINCE}")).declared(declared(o)),
        None => judge(o),
    }
}

/// The id of the task an answer hands over: 2026-07-28's `{"resultType": "task", "taskId"}`
/// or 2025-11-25's `{"task": {"taskId"}}`.
fn task_id_of(result: &Value) -> Option<&str> {
    if result.get("resultType").and_then(Value::as_str) == Some("task") {
        return result.get("taskId")?.as_str();
    }
    result.get("task")?.get("taskId")?.as_str()
}

/// The poll interval (ms) a task the server handed asks for: `pollIntervalMs` (2025-11-25:
/// `pollInterval`), [`POLL_INTERVAL_MS`] where the answer names none.
fn asked_interval_ms(result: &Value) -> u64 {
    let task = result.get("task").unwrap_or(result);
    task.get("pollIntervalMs").or_else(|| task.get("pollInterval")).and_then(Value::as_u64).unwrap_or(POLL_INTERVAL_MS)
}

/// A task the server handed the client: the call, the answer that carried the task, its id and
/// the poll interval it asked for.
struct Handed<'a> {
    call: &'a Frame,
    answer: &'a Frame,
    task_id: String,
    interval_ms: u64,
}

/// The task handed for the first call of `tool`, if the server handed one.
fn handed<'a>(o: &'a Observations, tool: &'a str) -> Option<Handed<'a>> {
    o.tool_calls(tool).find_map(|call| {
        let answer = o.answer_to(call)?;
        let result = answer.result()?;
        let task_id = task_id_of(result)?.to_string();
        Some(Handed { call, answer, task_id, interval_ms: asked_interval_ms(result) })
    })
}

/// Every task the server handed.
fn all_handed(o: &Observations) -> Vec<Handed<'_>> {
    TASK_TOOLS.iter().filter_map(|tool| handed(o, tool)).collect()
}

/// The client's requests of `method` about `task_id`.
fn about<'a>(o: &'a Observations, method: &'a str, task_id: &'a str) -> impl Iterator<Item = &'a Frame> + 'a {
    o.client_requests(method).filter(move |f| f.params().get("taskId").and_then(Value::as_str) == Some(task_id))
}

/// The status the server answered a `tasks/get` with.
fn status_of<'a>(o: &'a Observations, poll: &Frame) -> Option<&'a str> {
    o.answer_to(poll)?.result()?.get("status")?.as_str()
}

/// "1 poll", "3 polls".
fn polls(n: usize) -> String {
    format!("{n} poll{}", if n == 1 { "" } else { "s" })
}

/// Not-reached, or the verdict on a client refused a task: why no task of `tool` was handed.
fn not_handed(o: &Observations, tool: &str, declared: Declaration) -> Verdict {
    match o.tool_calls(tool).next() {
        None => never_sent(o, tool, "no task to follow").declared(declared),
        Some(call) => {
            let answer = o.answer_to(call);
            let code = answer.and_then(|a| a.error()).and_then(|e| e.get("code")).and_then(Value::as_i64);
            let detail = match (code, o.era()) {
                (Some(code), Some(Era::Modern)) => format!("the call of {tool} was refused a task ({code}): the client did not declare the tasks extension"),
                (Some(code), _) => format!("the call of {tool} was refused ({code}): it was made without params.task, and the tool requires a task"),
                (None, _) => format!("the call of {tool} got no task"),
            };
            Verdict::new(Outcome::No, detail).declared(declared).evidence(std::iter::once(call.seq).chain(answer.map(|a| a.seq))).opportunity([call.seq])
        }
    }
}

/// The verdict when no call of `tool` reached the server: no when the model called it (its
/// host kept the call back; the detail quotes what the model was told instead), not-reached
/// when nobody called it.
fn never_sent(o: &Observations, tool: &str, so: &str) -> Verdict {
    let Ok((call, _)) = first_call(o, tool) else {
        return Verdict::new(Outcome::NotReached, format!("{tool} was never called: {so}"));
    };
    let told = result_after(o, call, tool).map(|(_, _, text)| format!(": its model was told {:?}", ends_of(&text)));
    Verdict::new(Outcome::No, format!("the model called {tool}, and the host never sent the call to the server{}", told.unwrap_or_default())).opportunity_model([call])
}

/// `text` on one line, cut in the middle past 200 characters (a host's wrapper may come first
/// and its reason last).
fn ends_of(text: &str) -> String {
    let line: Vec<char> = text.split_whitespace().collect::<Vec<_>>().join(" ").chars().collect();
    if line.len() <= 200 {
        return line.into_iter().collect();
    }
    format!("{} … {}", line[..100].iter().collect::<String>(), line[line.len() - 100..].iter().collect::<String>())
}

/// This family's probes, in the matrix's order within each area.
pub(crate) const PROBES: &[&dyn crate::probe::Probe] =
    &[&AugmentedCall, &Followed, &PollInterval, &ResultFetched, &InputAnswered, &CancelTask, &ResultToModel, &FailedToModel, &TaskNameHeader, &Unadvertised];

probe! {
    /// Evidence (server journal, 2025-11-25): the call of `probe_task_result`, whose
    /// `execution.taskSupport` is `"required"`, carries `params.task` (a task-augmented call):
    /// yes. Made without it (the server refuses it, -32601, as that revision says) is no, and so
    /// is a call the model made that its host never sent (an SDK may refuse, on the client's
    /// side, to call such a tool without tasks; the model journal shows the call and what the
    /// model was told).
    AugmentedCall {
        id: "tasks.augmented_call", area: Tasks, title: "a tool that requires a task is called with params.task",
        revisions: ["2025-11-25"], eras: LEGACY, variant: Tasks, serves: "capabilities.tasks.requests.tools.call; the task tools have execution.taskSupport \"required\"",
        judge: |o| where_tasks_exist(o, judge_augmented_call), reads_model: true,
    }
}

fn judge_augmented_call(o: &Observations) -> Verdict {
    let Some(call) = o.tool_calls(TOOL_TASK_RESULT).next() else {
        return never_sent(o, TOOL_TASK_RESULT, "nothing to see");
    };
    match call.params().get("task") {
        Some(task) if task.is_object() => Verdict::new(Outcome::Yes, format!("asked for a task: params.task {task}")).evidence([call.seq]),
        _ => {
            let refused = o.answer_to(call).map(|a| a.seq);
            Verdict::new(Outcome::No, "called the tool without params.task, though its taskSupport is \"required\"")
                .evidence(std::iter::once(call.seq).chain(refused))
                .opportunity([call.seq])
        }
    }
}

probe! {
    /// Evidence (server journal): the task the server handed for a call (2026-07-28: an answer
    /// with `resultType: "task"`; 2025-11-25: a `CreateTaskResult` for a call with `params.task`)
    /// followed by a `tasks/get` with its `taskId`: yes. Tasks handed and none ever asked about is
    /// declared-only in 2026-07-28 (a client gets a task only when it declared the extension) and
    /// no in 2025-11-25. No task handed because the call was refused is no: for want of the
    /// declaration (-32021) in 2026-07-28, of `params.task` (-32601) in 2025-11-25.
    Followed {
        id: "tasks.followed", area: Tasks, title: "a task handed for a call is followed",
        revisions: ["2025-11-25"], eras: BOTH, variant: Tasks, serves: "the task tools answer with tasks (2026-07-28: to a client that declared the extension; 2025-11-25: to a task-augmented call)",
        judge: |o| where_tasks_exist(o, judge_followed), reads_model: true,
    }
}

fn judge_followed(o: &Observations) -> Verdict {
    let declared = declared(o);
    let tasks = all_handed(o);
    if tasks.is_empty() {
        return not_handed(o, TOOL_TASK_RESULT, declared);
    }
    let followed: Vec<&Frame> = tasks.iter().filter_map(|t| about(o, "tasks/get", &t.task_id).next()).collect();
    let answers = tasks.iter().map(|t| t.answer.seq);
    match followed.first() {
        Some(first) => {
            Verdict::new(Outcome::Yes, format!("followed {} of {} tasks with tasks/get", followed.len(), tasks.len())).declared(declared).evidence([tasks[0].answer.seq, first.seq])
        }
        None => {
            Verdict::new(if declared == Declaration::Declared { Outcome::DeclaredOnly } else { Outcome::No }, format!("was handed {} tasks and never asked tasks/get", tasks.len()))
                .declared(declared)
                .evidence(answers.clone())
                .opportunity(answers)
        }
    }
}

/// A `tasks/get` sooner than half the asked interval after the one before it counts as too soon
/// (timers are not exact; a client that honours the interval never comes near it).
fn too_soon_us(interval_ms: u64) -> u64 {
    interval_ms * 1000 / 2
}
/// More polls too soon than this is a busy loop.
const BUSY_LOOP: usize = 2;

probe! {
    /// Evidence (server journal): the `tasks/get` requests about each task the server handed,
    /// and the poll interval the task asked for (`pollIntervalMs`; in 2025-11-25 `pollInterval`;
    /// 200 ms as served to clients). Both generations say a client should poll no faster; a poll
    /// less than half that interval after the one before it about the same task counts as too
    /// soon (100 ms for clients).
    /// None too soon is yes; one or two is partial; more is no (a busy loop); the detail gives
    /// how many polls there were and how many came too soon. No task polled is not-reached.
    PollInterval {
        id: "tasks.poll_interval", area: Tasks, title: "tasks are polled no faster than pollIntervalMs",
        revisions: ["2025-11-25"], eras: BOTH, variant: Tasks, serves: "every task asks for a poll interval of 200 ms (pollIntervalMs; 2025-11-25: pollInterval)",
        judge: |o| where_tasks_exist(o, judge_poll_interval),
    }
}

fn judge_poll_interval(o: &Observations) -> Verdict {
    let declared = declared(o);
    let (mut count, mut too_soon) = (0, Vec::new());
    let mut first = None;
    let handed = all_handed(o);
    for task in &handed {
        let asked: Vec<&Frame> = about(o, "tasks/get", &task.task_id).collect();
        count += asked.len();
        first = first.or(asked.first().map(|f| f.seq));
        let soon = too_soon_us(task.interval_ms);
        too_soon.extend(asked.windows(2).filter(|pair| pair[1].t_us.saturating_sub(pair[0].t_us) < soon).map(|pair| pair[1].seq));
    }
    let Some(first) = first else {
        return Verdict::new(Outcome::NotReached, "no task was polled").declared(declared);
    };
    // Every task of a server asks for the same interval: the detail names the first's.
    let soon_ms = too_soon_us(handed.first().map_or(POLL_INTERVAL_MS, |t| t.interval_ms)) / 1000;
    let counted = format!("{}, {} of them less than {soon_ms} ms after the one before", polls(count), too_soon.len());
    match too_soon.len() {
        0 => Verdict::new(Outcome::Yes, counted).declared(declared).evidence([first]),
        n if n <= BUSY_LOOP => Verdict::new(Outcome::Partial, counted).declared(declared).evidence(too_soon.clone()).opportunity([first]),
        _ => Verdict::new(Outcome::No, format!("a busy loop: {counted}")).declared(declared).evidence(too_soon.iter().copied().take(5)).opportunity([first]),
    }
}

probe! {
    /// Evidence (server journal): the result of the task of `probe_task_result`, fetched: in
    /// 2026-07-28 a `tasks/get` answered `completed` (the result inlined), in 2025-11-25 a
    /// `tasks/result` answered with the tool's result. Fetched is yes; stopping while the task was
    /// still working, or (2025-11-25) never asking `tasks/result`, is no. No task handed is as
    /// `tasks.followed`.
    ResultFetched {
        id: "tasks.result_fetched", area: Tasks, title: "a task is followed until its result",
        revisions: ["2025-11-25"], eras: BOTH, variant: Tasks, serves: "probe_task_result: a task that completes after 1 s",
        judge: |o| where_tasks_exist(o, judge_result_fetched), reads_model: true,
    }
}

fn judge_result_fetched(o: &Observations) -> Verdict {
    let declared = declared(o);
    let Some(task) = handed(o, TOOL_TASK_RESULT) else { return not_handed(o, TOOL_TASK_RESULT, declared) };
    let asked: Vec<&Frame> = about(o, "tasks/get", &task.task_id).collect();
    if o.era() == Some(Era::Legacy) {
        let fetched = about(o, "tasks/result", &task.task_id).find(|r| o.answer_to(r).is_some_and(|a| a.result().is_some()));
        return match fetched {
            Some(fetched) => {
                Verdict::new(Outcome::Yes, format!("fetched the result with tasks/result after {}", polls(asked.len()))).declared(declared).evidence([task.answer.seq, fetched.seq])
            }
            None => {
                let last = asked.last().map_or(task.answer.seq, |p| p.seq);
                let saw_it_done = asked.iter().any(|p| status_of(o, p) == Some("completed"));
                let detail = if saw_it_done {
                    "saw the task completed and never asked tasks/result".to_string()
                } else {
                    format!("never fetched the result (tasks/result) after {}", polls(asked.len()))
                };
                Verdict::new(Outcome::No, detail).declared(declared).evidence([task.answer.seq, last]).opportunity([task.answer.seq])
            }
        };
    }
    match asked.iter().find(|p| status_of(o, p) == Some("completed")) {
        Some(done) => Verdict::new(Outcome::Yes, format!("asked {} times until the task completed", asked.len())).declared(declared).evidence([task.answer.seq, done.seq]),
        None => {
            let last = asked.last().map_or(task.answer.seq, |p| p.seq);
            Verdict::new(Outcome::No, format!("stopped asking after {}, while the task was still working", polls(asked.len())))
                .declared(declared)
                .evidence([task.answer.seq, last])
                .opportunity([task.answer.seq])
        }
    }
}

probe! {
    /// Evidence (server journal): the task of `probe_task_input` turns `input_required` with one
    /// form elicitation under the key `confirm`; a `tasks/update` about that task whose
    /// `inputResponses` answer `confirm`, accepted by the server, is yes. The client told of the
    /// request (a `tasks/get` answered `input_required`) and never answering it is no; never
    /// asking far enough to be told is no as well.
    InputAnswered {
        id: "tasks.input_answered", area: Tasks, title: "a task's input request is answered with tasks/update",
        revisions: ["2026-07-28"], eras: MODERN, variant: Tasks, serves: "probe_task_input: input_required with one form elicitation until tasks/update answers it",
        judge: |o| where_tasks_exist(o, judge_input_answered), reads_model: true,
    }
}

fn judge_input_answered(o: &Observations) -> Verdict {
    let declared = declared(o);
    let Some(task) = handed(o, TOOL_TASK_INPUT) else { return not_handed(o, TOOL_TASK_INPUT, declared) };
    let told = about(o, "tasks/get", &task.task_id).find(|p| status_of(o, p) == Some("input_required"));
    let answered = about(o, "tasks/update", &task.task_id).find(|u| u.params().get("inputResponses").and_then(|r| r.get(INPUT_KEY)).is_some());
    match (answered, told) {
        (Some(update), _) if o.answer_to(update).is_some_and(|a| a.result().is_some()) => {
            Verdict::new(Outcome::Yes, "answered the task's input request with tasks/update").declared(declared).evidence([task.answer.seq, update.seq])
        }
        (Some(update), _) => Verdict::new(Outcome::No, "sent tasks/update, which the server refused").declared(declared).evidence([update.seq]).opportunity([update.seq]),
        (None, Some(told)) => Verdict::new(Outcome::No, "was told the task needs input and never answered it").declared(declared).evidence([told.seq]).opportunity([told.seq]),
        (None, None) => {
            Verdict::new(Outcome::No, "never asked far enough to see the task's input request").declared(declared).evidence([task.answer.seq]).opportunity([task.answer.seq])
        }
    }
}

probe! {
    /// Evidence (server journal): `probe_task_long`'s task works for 20 s. A client that gives
    /// up on it sends `tasks/cancel` with its `taskId`: yes. `notifications/cancelled` for the
    /// call that created it is a violation (the call was answered with the task; both
    /// generations say cancel the task instead). Neither, while the task was left working (the client
    /// stopped asking, or ended), is no; neither because the client waited the 20 s out is
    /// not-reached (it never gave up, so there was nothing to cancel).
    CancelTask {
        id: "tasks.cancel", area: Tasks, title: "a task given up on is cancelled with tasks/cancel",
        revisions: ["2025-11-25"], eras: BOTH, variant: Tasks, serves: "probe_task_long: a task that works for 20 s unless cancelled",
        judge: |o| where_tasks_exist(o, judge_cancel), reads_model: true,
    }
}

fn judge_cancel(o: &Observations) -> Verdict {
    let declared = declared(o);
    let Some(task) = handed(o, TOOL_TASK_LONG) else { return not_handed(o, TOOL_TASK_LONG, declared) };
    if let Some(cancel) = about(o, "tasks/cancel", &task.task_id).next() {
        return Verdict::new(Outcome::Yes, "cancelled the task it gave up on with tasks/cancel").declared(declared).evidence([task.answer.seq, cancel.seq]);
    }
    let call_id = task.call.id();
    let notified = o.client_notifications("notifications/cancelled").find(|n| n.seq > task.answer.seq && n.params().get("requestId") == call_id);
    if let Some(notified) = notified {
        return Verdict::new(Outcome::Violation, "cancelled the call that created the task with notifications/cancelled, not the task")
            .declared(declared)
            .evidence([task.answer.seq, notified.seq]);
    }
    let asked: Vec<&Frame> = about(o, "tasks/get", &task.task_id).collect();
    match asked.iter().find(|p| status_of(o, p) == Some("completed")) {
        Some(done) => Verdict::new(Outcome::NotReached, "waited the task out (20 s): it never gave up, so there was nothing to cancel").declared(declared).evidence([done.seq]),
        None => Verdict::new(Outcome::No, format!("left the task working after {}, without tasks/cancel", polls(asked.len())))
            .declared(declared)
            .evidence([task.answer.seq])
            .opportunity([task.answer.seq]),
    }
}

probe! {
    /// Evidence (model journal): the model's call of `probe_task_result` and a later request
    /// whose tool result holds the completed task's text: yes. The model handed something else
    /// for the call (the task handle, an error) is no.
    ResultToModel {
        id: "tasks.result_to_model", area: Tasks, title: "a completed task's result reaches the model",
        revisions: ["2025-11-25"], eras: BOTH, variant: Tasks, serves: "probe_task_result's task completes with a text result",
        judge: |o| where_tasks_exist(o, judge_result_to_model), needs_model: true,
    }
}

fn judge_result_to_model(o: &Observations) -> Verdict {
    reached_model(o, TOOL_TASK_RESULT, RESULT_CANARY, "the completed task's result")
}

probe! {
    /// Evidence (model journal): the model's call of `probe_task_fail`, whose task fails with a
    /// JSON-RPC error, and a later request whose tool result holds the error's message: yes (the
    /// model learns the task failed). Anything else handed back for the call is no.
    FailedToModel {
        id: "tasks.failed_to_model", area: Tasks, title: "a failed task is reported to the model",
        revisions: ["2025-11-25"], eras: BOTH, variant: Tasks, serves: "probe_task_fail's task fails with a JSON-RPC error",
        judge: |o| where_tasks_exist(o, judge_failed_to_model), needs_model: true,
    }
}

fn judge_failed_to_model(o: &Observations) -> Verdict {
    reached_model(o, TOOL_TASK_FAIL, FAIL_CANARY, "the failed task's error")
}

/// Yes when `canary` reached the model in a tool result after its call of `tool`.
fn reached_model(o: &Observations, tool: &str, canary: &str, what: &str) -> Verdict {
    let declared = declared(o);
    let call = match first_call(o, tool) {
        Ok((call, _)) => call,
        Err(verdict) => return verdict.declared(declared),
    };
    match result_after(o, call, canary) {
        Some((seq, _, _)) => Verdict::new(Outcome::Yes, format!("{what} reached the model")).declared(declared).evidence([call, seq]),
        None => Verdict::new(Outcome::No, format!("the model never got {what}")).declared(declared).evidence([call]).opportunity([call]),
    }
}

probe! {
    /// Evidence (server journal, HTTP): the headers of every `tasks/get`, `tasks/update` and
    /// `tasks/cancel` posted. Each must carry `Mcp-Name` equal to its `taskId` (Base64 sentinel
    /// decoded), so that a gateway can route it to the server that holds the task. All do: yes;
    /// some: partial; none: no. No task request posted is not-reached.
    TaskNameHeader {
        id: "tasks.mcp_name_header", area: Tasks, title: "task requests carry the task id in Mcp-Name",
        revisions: ["2026-07-28"], eras: MODERN, transports: HTTP_ONLY, variant: Tasks, serves: "Streamable HTTP; the tasks extension",
        judge: |o| where_tasks_exist(o, judge_name_header),
    }
}

fn judge_name_header(o: &Observations) -> Verdict {
    let declared = declared(o);
    let posted: Vec<&Frame> = ["tasks/get", "tasks/update", "tasks/cancel"].iter().flat_map(|m| o.client_requests(m)).collect();
    let Some(first) = posted.iter().map(|f| f.seq).min() else {
        return Verdict::new(Outcome::NotReached, "no task request was posted").declared(declared);
    };
    let wrong: Vec<u64> = posted
        .iter()
        .filter(|f| {
            let id = f.params().get("taskId").and_then(Value::as_str);
            http_header(o, f, "mcp-name").and_then(decoded).as_deref() != id
        })
        .map(|f| f.seq)
        .collect();
    match wrong.len() {
        0 => Verdict::new(Outcome::Yes, format!("all {} task requests name their task", posted.len())).declared(declared).evidence([first]),
        n if n == posted.len() => {
            Verdict::new(Outcome::No, "no task request names its task in Mcp-Name").declared(declared).evidence(wrong.iter().copied().take(3)).opportunity([first])
        }
        n => Verdict::new(Outcome::Partial, format!("{n} of {} task requests lack a matching Mcp-Name", posted.len()))
            .declared(declared)
            .evidence(wrong.iter().copied().take(3))
            .opportunity([first]),
    }
}

probe! {
    /// Evidence (server journal, the standard server, which declares tasks neither as the
    /// 2026-07-28 extension nor as 2025-11-25's `tasks` capability): no `tasks/*` request and no
    /// call that asks for a task (`params.task`): yes. One is no (a client must not use what the
    /// server did not declare).
    Unadvertised {
        id: "tasks.unadvertised_not_asked", area: Tasks, title: "no tasks/* request to a server that does not offer tasks",
        revisions: ["2025-11-25", "2026-07-28"], eras: BOTH, serves: "no tasks extension or capability: tasks/* refused (-32601)",
        judge: |o| super::none_asked(o, "tasks/* request", |f| super::method_in(f, "tasks/") || f.params().get("task").is_some(), "a server that offers no tasks"),
    }
}
