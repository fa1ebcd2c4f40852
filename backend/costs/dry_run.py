"""`--dry-run`: what a run will call, how many tokens, what it will cost and take, calling no model.

Prompts are rendered and looked up in the call cache exactly as the engine does, so "cached" means the
run will not call for it. Tokens come from :mod:`backend.costs.tokens` (real tokenizer or a stated
approximation), image tokens from :mod:`backend.costs.image_tokens` (where the provider documents its
billing; else the row says "image tokens: not counted (why)"); time from the median latency of this
member's earlier calls recorded in the cache (PENDING when there is none), divided by the concurrency its
provider gets. A member that cannot see is not called for an item with images (the engine's ``no_vision``).
"""

from __future__ import annotations

import statistics
from collections import defaultdict
from typing import Any, Iterable

from sqlalchemy import select

from backend.scoring.cache import CallCache, llm_call_cache
from backend.costs.accounting import provider_model
from backend.costs.image_tokens import image_tokens
from backend.costs.prices import PriceTable
from backend.costs.tokens import output_tokens_per_call, token_counter
from backend.families.choices_presentation import bare_codes
from backend.task.dataset import Item, ItemError
from backend.scoring.engine import Engine, EngineConfig
from backend.scoring.engine_config import DEFAULT_PROVIDER_CONCURRENCY
from backend.providers.base import accepts_images
from backend.scoring.question_engine import make_engine
from backend.labelstudio.projectspec import attach_guidelines
from backend.images.items import fetcher_from_settings


def past_latency(cache: CallCache | None, member: Any) -> tuple[float | None, int]:
    """Median latency (s) of this member's cached calls and how many it rests on."""
    if cache is None:
        return None, 0
    cols = llm_call_cache.c
    query = select(cols.latency_s).where(cols.provider == member.kind, cols.model == member.model,
                                         cols.template_id == member.template.id, cols.latency_s.is_not(None))
    with cache.db_engine.connect() as conn:
        values = [float(v) for (v,) in conn.execute(query)]
    return (statistics.median(values), len(values)) if values else (None, 0)


def estimate_run(engine: Engine, entries: Iterable[Item | ItemError], *, prices: PriceTable | None) -> dict[str, Any]:
    """Per member: calls to make, cached calls, estimated tokens, cost and time, without calling a model."""
    items = [e for e in entries if isinstance(e, Item)]
    rows = []
    kind_seconds: dict[str, float] = defaultdict(float)
    unknown_time = False
    for member in engine.members:
        count, how = token_counter(member.provider)
        keys, rendered, no_vision = {}, 0, 0
        sees = accepts_images(member.provider)
        for item in items:
            if item.images and not sees:
                no_vision += 1  # the engine leaves this member out of the item's questions (no_vision)
                continue
            for question in getattr(engine, "engines", [engine]):  # a multi-question task: each question's prompt
                try:
                    prompt = question.prompt_for(member, item)
                except ValueError:
                    continue  # a render error: the run records it and calls nothing
                keys[question.key_for(member, prompt, item.images)] = (prompt, item.images)
                rendered += 1
        hits = engine.cache.get_many(keys) if engine.cache is not None else {}
        fresh = [call for k, call in keys.items() if k not in hits]
        text_tokens = {prompt: count(prompt) for prompt, _ in fresh}
        image_count, images_by = _image_tokens(member.provider, [images for _, images in fresh if images])
        input_tokens = sum(text_tokens.values()) + (image_count or 0)
        output_tokens = output_tokens_per_call(member.provider) * len(fresh)
        provider, model = provider_model(member.id)
        price = prices.find(provider, model) if prices is not None else None
        median, n_timed = past_latency(engine.cache, member)
        seconds = None if median is None else median * len(fresh)
        if seconds is None and fresh:
            unknown_time = True
        else:
            kind_seconds[member.kind] += seconds or 0.0
        rows.append({
            "member": member.id, "calls": len(fresh), "cached": rendered - len(fresh),
            "input_tokens": input_tokens, "output_tokens": output_tokens,
            "tokenizer": f"{how}; {images_by}" if images_by else how,
            **({"image_tokens": image_count, "no_vision_items": no_vision} if images_by or no_vision else {}),
            "cost_usd": None if price is None else round(price.cost(input_tokens, output_tokens), 9),
            "seconds": None if seconds is None else round(seconds, 2),
            "latency_basis": f"median of {n_timed} earlier calls" if n_timed else "no earlier call timed",
        })
    return _totals(engine, items, rows, kind_seconds, unknown_time, prices)


def _image_tokens(provider: Any, calls: list[Any]) -> tuple[int | None, str]:
    """Image tokens of ``calls`` (each a tuple of images) and the words for the "tokens by" column;
    None tokens when any call's images cannot be counted (the words say why)."""
    if not calls:
        return 0, ""
    counted = [image_tokens(provider, images) for images in calls]
    missing = next((t.basis for t in counted if t.tokens is None), None)
    if missing is not None:
        return None, f"image tokens: not counted ({missing})"
    return sum(t.tokens or 0 for t in counted), f"image tokens: {counted[0].basis}"


def _totals(engine, items, rows, kind_seconds, unknown_time, prices) -> dict[str, Any]:
    caps = {**DEFAULT_PROVIDER_CONCURRENCY, **(engine.config.per_provider_concurrency or {})}
    wall = max((s / min(caps.get(kind, engine.config.concurrency), engine.config.concurrency)
                for kind, s in kind_seconds.items()), default=0.0)
    costs = [r["cost_usd"] for r in rows]
    return {
        "items": len(items),
        "calls": sum(r["calls"] for r in rows),
        "cached_calls": sum(r["cached"] for r in rows),
        "input_tokens": sum(r["input_tokens"] for r in rows),
        "output_tokens": sum(r["output_tokens"] for r in rows),
        "cost_usd": None if any(c is None for c in costs) else round(sum(costs), 9),
        "seconds": None if unknown_time else round(wall, 2),
        "prices_as_of": None if prices is None else prices.as_of,
        "members": rows,
        "note": "estimates: calls and cached calls are exact; tokens per the 'tokens by' column; time from "
                "earlier calls' median latency over the provider's concurrency; early exit would call fewer",
    }


def estimate_audit(client: Any, project: int, *, config: Any, ledger: Any, prices: PriceTable | None) -> dict[str, Any]:
    """The dry run of `label-audit audit`: the project's tasks the ledger has no result for yet."""
    # heavy: loads label_studio_sdk's client, ~1.1 s at import, not loaded by label-audit --help
    from backend.labelstudio.client import iter_tasks
    from backend.labelstudio.tasks import tasks_to_items
    from backend.labelstudio.taskshape import job_task

    info = client.projects.get(id=project)
    label_config = attach_guidelines(info.label_config, getattr(info, "expert_instruction", None))
    spec = config.spec(label_config)
    members = config.build(spec)
    version = config.model_version(spec)
    tasks = [job_task(t) for t in iter_tasks(client, project, with_annotations=True)]
    fetcher = fetcher_from_settings(config.settings) if spec.image_fields else None
    try:  # image tokens are counted from the images themselves (their size)
        items = tasks_to_items(tasks, spec, label_field=config.label_field, max_chars=config.max_item_chars,
                               fetcher=fetcher).items
    finally:
        if fetcher is not None:
            fetcher.close()
    todo = set(ledger.pending(str(project), [it.id for it in items], version))
    cache = CallCache(config.settings.store_url)
    try:
        engine = make_engine(spec, members, cache=cache, config=EngineConfig(threshold=config.threshold))
        estimate = estimate_run(engine, [it for it in items if it.id in todo], prices=prices)
    finally:
        cache.close()
    estimate["already_scored"] = len(items) - len(todo)
    estimate["presentation_warnings"] = [w.to_dict() for w in bare_codes(spec)]  # said before the audit's calls
    return estimate
