"""Every default of a run in one module (as rq keeps its defaults in ``rq.defaults``).

The CLI options, the environment reader (:mod:`backend.config.settings`) and the dataclasses built from them
all take their defaults from here, so a default changes in one place.
"""

from __future__ import annotations

__all__ = [
    "AUDIT_WAIT", "BACKEND_PORT", "EXPERT_PORT", "JOB_TIMEOUT", "LABEL_STUDIO_BIN",
    "BACKOFF_BASE", "BACKOFF_MAX", "BATCH_SIZE", "BREAKER_AFTER", "BREAKER_COOLDOWN", "CALIBRATION", "CONCURRENCY",
    "CONFIDENT_FOLDS", "CONFIDENT_MIN_PER_CLASS", "CONFIDENT_SEED",
    "DEFAULT_DELTA", "EARLY_EXIT", "EXCLUDE_MEMBERS", "HEALTH_COLLAPSE_SHARE", "HEALTH_MIN_ANSWERS", "HEALTH_MIN_MASS",
    "HEALTH_SPREAD_SHARE", "HOME", "IMAGE_FETCH_TIMEOUT", "IMAGE_MAX_BYTES", "IMAGE_MAX_PIXELS", "IMPORT_WAIT", "MAX_ATTEMPTS", "MAX_ID_CHARS", "MAX_ITEM_CHARS", "MAX_REQUEST_BYTES", "MEMBER", "MODELS_DIR", "MULTILABEL_ORDERS", "OPTION_ORDERS", "ORDER_SKIP", "PRIOR_CORRECTION", "QUEUE", "QUORUM_MODELS",
    "QUORUM_SHARE", "RANKER_SWAPS", "REDIS_URL", "SPEC", "TIMEOUT", "TOP", "UNTIL_WIDTH_BATCH", "UNTIL_WIDTH_RULE",
]

SPEC = "auto"  # the Label Studio backend: a built-in spec when the project fits one, else its own prompts
MEMBER = "local:smollm2"  # the embedded default judge
# Where an opt-in named judge (`label-audit judge install NAME`) is assembled: one copy per user, shared by every
# checkout and project, like the Label Studio venv beside it. LABEL_AUDIT_MODELS_DIR changes it.
MODELS_DIR = "~/.cache/label-audit/models"
CONCURRENCY = 8  # calls in flight at once
TIMEOUT = 60.0  # per-call timeout, seconds
MAX_ATTEMPTS = 5  # tries per call, the first included
QUORUM_SHARE = 0.5  # share of the members that must answer for a flaggable verdict
QUORUM_MODELS = True  # and every model through at least one of its prompts
# A single-choice question with lettered options is asked in this many cyclic orders of its options and each
# member averaged over them (backend.task.option_orders): a letter or position preference of the judge
# cancels in part (exactly when it equals the number of options), at this many calls per member and item.
# Measured by bench/bench_judges.py (docs/judges.md). LABEL_AUDIT_OPTION_ORDERS changes it. Default 2: on
# 120 real-judge items (6 classes, 12 planted errors) two orders raised the ensemble's accuracy 0.66 -> 0.80,
# planted-error AUROC 0.97 -> 1.00 and AP 0.84 -> 1.00, evened the classes (predicted / true 0.30-1.75 ->
# 0.60-1.45) and the flag rule (precision / recall 0.40 / 0.33 -> 0.88 / 0.58), at twice the judges' calls
# (a confident-learning member answers the first order only). Two labels: every rotation, exact cancelling.
# Preferences (pairwise) are always asked in both orders (backend.families.pairwise).
OPTION_ORDERS = 2
# A multi-label task's yes/no question per label asked in this many orders of its two options (1: "A. Yes / B. No"
# only; 2: also "A. No / B. Yes", each member averaged over both as above: backend.task.multilabel_orders).
# LABEL_AUDIT_MULTILABEL_ORDERS changes it. Default 1 until measured: two orders double the calls of a task
# that already costs one call per label, member and item (bench/bench_multilabel_orders.py measures both).
MULTILABEL_ORDERS = 1
# A single-choice judge's answers divided by its answer to a content-free item (backend.scoring.contextual_calibration,
# Zhao et al. 2021): "none" or "content-free". LABEL_AUDIT_CALIBRATION changes it. Opt-in: on 60 real-judge
# items it raised the ensemble's accuracy (0.62 -> 0.67 in one order, 0.75 -> 0.78 in two) but not its
# planted-error ranking (AP 0.77 -> 0.75, 1.00 -> 0.92) nor its flags (docs/judges.md).
CALIBRATION = "none"
# The verdicts over the whole run corrected for the class lean of the judges (backend.scoring.project_pass):
# "auto" (backend.scoring.correction_choice: of the judges' average, "given" and "fitted", the reading whose verdicts
# agree with the most of the project's own labels, no label read to predict itself), "none" (the judges' average),
# "em" (Saerens et al. 2002), "batch" (divide out each judge's mean answer), "given" (towards the shares of the
# project's labels) or "fitted" (backend.scoring.label_fit: a model of the other folds' labels reads every judge's
# answers). LABEL_AUDIT_PRIOR_CORRECTION, `score --prior-correction`. "auto" is the default: on the real judge's
# four runs (SNLI values+q 100 and natural 80, SNLI hints 64, Rotten Tomatoes values+q 64) it chose the reading
# with the best true accuracy each time (fitted, given, given, none); on the three balanced runs every class stays
# within 1.5x with flags at precision and recall >= 0.5, where "none" left SNLI's neutral at 0.30 and 0.43 and
# "fitted" cost SNLI hints its flags (docs/judges.md). Below 30 items it reads nothing (the judges' average stands);
# below 60 labels "fitted" is not a candidate (label_fit.MIN_LABELS: on 17 recorded runs the flags' bar was then
# met on 15 instead of 13).
PRIOR_CORRECTION = "auto"
EARLY_EXIT = False  # stop an item once the remaining members cannot change its verdict
# Leave an item's later option orders unasked when its first order settles the flag whatever they answer
# (backend.scoring.order_skip: exact, lossless). LABEL_AUDIT_ORDER_SKIP: false, true/exact, or margin:M (lossy: ask
# them only where the first order's confidence against the label is within M of the threshold; enters the model
# version). Off: with every member asked again and the threshold at 0.5 the bound never settles (the second
# order carries half the weight); it saves calls only above 0.5 or beside a member asked once (confident
# learning). bench/bench_presentations.py measures both rules (docs/judges.md).
ORDER_SKIP = False
DEFAULT_DELTA = 1  # ordinal flag rule: |prediction - original| above this many grades
# Ranker flag rule: more than this many pairs of ranked responses confidently reversed by the ensemble
# (backend.families.ranker); LABEL_AUDIT_DELTA / --delta sets it for a ranker project, as it sets an ordinal's grades.
RANKER_SWAPS = 0
TOP = 10  # suspects listed in a summary
BACKOFF_BASE = 0.5  # first backoff, seconds
BACKOFF_MAX = 30.0  # backoff cap, seconds
BREAKER_AFTER = 5  # consecutive failed calls that mark a provider down
BREAKER_COOLDOWN = 30.0  # seconds a provider stays marked down
BATCH_SIZE = 16  # Label Studio tasks per queued job
QUEUE = "label-audit"  # rq queue name
IMPORT_WAIT = 2.0  # seconds predictions wait at least in the ledger's outbox, so jobs share import calls
REDIS_URL = "redis://127.0.0.1:6379/0"
JOB_TIMEOUT = 3600  # seconds rq lets one scoring job run before it is failed (and retried)
AUDIT_WAIT = 3600.0  # seconds `label-audit audit --wait` (and the demo) wait at most for the workers
BACKEND_PORT = 9090  # where Label Studio calls the ML backend (`label-audit serve`, the demo)
EXPERT_PORT = 8081  # first port of the local expert review instances (`label-audit review instances start`)
# The Label Studio that tests, the demo and local review instances start (LABEL_STUDIO_BIN changes it).
LABEL_STUDIO_BIN = "~/.cache/label-audit/ls-venv-1.23.2/bin/label-studio"
HOME = ".label-audit"  # folder of the default SQLite store and the report cache
MAX_REQUEST_BYTES = 32 * 1024 * 1024  # largest request body the ML backend accepts
# Characters of an item's prompt inputs (all fields together). Cost: every member's every prompt sends
# them, ~4 characters a token: 20 000 characters are ~5 000 input tokens per call, while one 1 MB text
# was ~250 000 tokens per call (x members x prompts). LABEL_AUDIT_MAX_ITEM_CHARS changes it.
MAX_ITEM_CHARS = 20_000
# Width of the SQL store's key and label columns (String(STORE_COLUMN_CHARS)): project, task and annotation ids,
# model versions, member ids, label values. PostgreSQL refuses a longer value and with it the whole batch;
# declared once here, used by every table and every check of what fits (the migrations keep their literal
# 255: a revision's schema never changes after it is released).
STORE_COLUMN_CHARS = 255
MAX_ID_CHARS = STORE_COLUMN_CHARS  # an item or task id must fit the ledger's key columns
CONFIDENT_MIN_PER_CLASS = 20  # confident-learning member: labelled items each class needs before it is fitted
CONFIDENT_FOLDS = 5  # its cross-validation folds (fewer when the smallest class is smaller)
CONFIDENT_SEED = 0  # its fold assignment
# Image inputs (backend.images.fetch): the largest image fetched for a judge. OpenAI takes up to 20 MB per
# image and Gemini 20 MB per inline request; 10 MB leaves room for the prompt. LABEL_AUDIT_IMAGE_MAX_BYTES.
IMAGE_MAX_BYTES = 10 * 1024 * 1024
IMAGE_MAX_PIXELS = 50_000_000  # a decompression bomb (a tiny PNG of 100 000 x 100 000 pixels) is refused
IMAGE_FETCH_TIMEOUT = 30.0  # seconds per image fetch (connect and each read)
# Member health (backend.scoring.member_health): a member x prompt is named when one label is its answer for at
# least HEALTH_COLLAPSE_SHARE of the items while that label is the original of at most HEALTH_SPREAD_SHARE
# of them (issue 34: a prompt answered B for 99 % of items where B was 24 % of the labels), or when its
# answers put on average less than HEALTH_MIN_MASS of their probability on the class tokens (SmolLM2-135M:
# about 0.1). Fewer than HEALTH_MIN_ANSWERS answers: PENDING (20 answers put a share of 0.8 within about
# +-0.18 at 95 %, enough to tell 0.99 from 0.4).
HEALTH_MIN_ANSWERS = 20
HEALTH_COLLAPSE_SHARE = 0.8
HEALTH_SPREAD_SHARE = 0.6
HEALTH_MIN_MASS = 0.5
# `review push --until-width W` (backend.review.until_width): control items drawn per batch, and the stopping rule
# ("fixed": the size planned up front from the scores; "two-stage": a pilot batch, then the size its interval asks
# for; "sequential": a batch at a time, stop when the interval is within W). Sequential, because in
# bench/bench_until_width.py (docs/statistics.md, "Review until sure") its final 95 % interval covered 0.943-0.998
# over 9 populations (rare errors and judges at chance included; 300 and 600 replicates) where the fixed and
# two-stage rules fell to 0.937 / 0.938, and it alone met the target in every run, with the fewest reviews
# (tickets ±2 points: 94 reviews against 531 for the fixed plan).
UNTIL_WIDTH_BATCH = 50
UNTIL_WIDTH_RULE = "sequential"
EXCLUDE_MEMBERS = ""  # members left out of the ensemble (LABEL_AUDIT_EXCLUDE_MEMBERS, --exclude-member)

# Triage of the flagged items (backend.review.triage) when the review has too few verdicts to learn the
# error cut: P(original label wrong) under the truth model from which an item is a likely error; the share
# of the annotators' most given label below which they split; judges' mean normalised entropy and spread
# (Jensen–Shannon) above which they are uncertain or disagree; a label pair is a guideline gap when at least
# GAP_MIN_ITEMS flagged items sit on it and the sources' pooled confusion between the two reaches GAP_MIN_RATE.
TRIAGE_ERROR_CUT = 0.7
TRIAGE_PD_CUT = 0.6
TRIAGE_ENTROPY_CUT = 0.6
TRIAGE_SPREAD_CUT = 0.2
TRIAGE_GAP_MIN_ITEMS = 5
TRIAGE_GAP_MIN_RATE = 0.15
TRIAGE_MIN_PER_ANNOTATOR = 10  # below this median of items per annotator, the triage pools the annotators
