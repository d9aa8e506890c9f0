"""Published prices the money module (Module 4) computes with, each with its source and date.

Prices move: every entry says when it was published, and a lesson that uses one says so too. Rental
prices are on-demand list prices per accelerator-hour (an 8-GPU instance's hourly price / 8);
reserved and spot prices are lower. API prices are per million tokens. Purchase prices of datacenter
GPUs are not published by the vendor: the entries here are analysts' reported estimates.
Older API prices (per 1,000 tokens) are in coursekit.calc.serving_cost.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class RentalPrice:
    chip: str                  # a name in coursekit.hardware.BY_NAME
    dollars_per_hour: float    # per accelerator (GPU or chip), on demand
    date: str                  # when the price was published or observed
    source: str


@dataclass(frozen=True)
class ApiPrice:
    model: str
    input_per_m: float         # $ per million prompt (input) tokens
    output_per_m: float        # $ per million generated (output) tokens
    date: str
    source: str


AWS_P5_H100 = RentalPrice(
    "NVIDIA H100 SXM", 98.32 / 8, "July 2023",
    "AWS EC2 P5 instance pricing at launch (26 July 2023): p5.48xlarge, 8 x H100 SXM 80GB, $98.32/hour on demand, us-east-1")
AWS_P4D_A100 = RentalPrice(
    "NVIDIA A100 40GB", 32.77 / 8, "2023",
    "AWS EC2 P4d pricing (2023): p4d.24xlarge, 8 x A100 40GB, $32.77/hour on demand, us-east-1")
GCP_TPU_V5E = RentalPrice(
    "Google TPU v5e", 1.20, "August 2023",
    "Google Cloud blog, 'Expanding our AI-optimized infrastructure portfolio' (Next '23, 29 August 2023): "
    "TPU v5e from $1.20 per chip-hour")
AWS_INF2 = RentalPrice(
    "AWS Inferentia2", 12.98 / 12, "2023",
    "AWS EC2 Inf2 pricing (2023): inf2.48xlarge, 12 Inferentia2 chips, $12.98/hour on demand, us-east-1")

# source: textbook section 58.5, "Training-Inference Co-Design": an H100 "rents for about $3 to $5 per hour
# in 2026" (market rates of GPU clouds, not a hyperscaler's on-demand list price; no provider named).
TEXTBOOK_H100_HOURLY = (3.0, 5.0)

RENTALS = {p.chip: p for p in (AWS_P5_H100, AWS_P4D_A100, GCP_TPU_V5E, AWS_INF2)}

GPT4O_2024_08 = ApiPrice(
    "GPT-4o (2024-08-06)", 2.50, 10.00, "6 August 2024",
    "OpenAI, 'Introducing Structured Outputs in the API' (6 August 2024): gpt-4o-2024-08-06 at $2.50/M input, $10.00/M output")
GPT4O_MINI = ApiPrice(
    "GPT-4o mini", 0.15, 0.60, "18 July 2024",
    "OpenAI, 'GPT-4o mini: advancing cost-efficient intelligence' (18 July 2024): $0.15/M input, $0.60/M output")
CLAUDE35_SONNET = ApiPrice(
    "Claude 3.5 Sonnet", 3.00, 15.00, "20 June 2024",
    "Anthropic, 'Introducing Claude 3.5 Sonnet' (20 June 2024): $3/M input, $15/M output")

API_PRICES = {p.model: p for p in (GPT4O_2024_08, GPT4O_MINI, CLAUDE35_SONNET)}

# Owning hardware. A GPU's purchase price is an estimate; power is the datasheet's maximum board power.
# source: Raymond James estimate reported by CNBC, "Nvidia's H100 ... $25,000 to $30,000" (2023); upper end.
H100_PURCHASE = 30_000.0
H100_SXM_KW = 0.700        # source: NVIDIA H100 datasheet (2023): max TDP 700 W (SXM)
# Owning a GPU means owning its share of a server: CPUs, memory, NVMe, NICs, NVSwitch board, chassis. A cloud's
# per-GPU hourly price covers all of that, so compare it with a server's price and power per GPU, not a bare GPU.
# source: SemiAnalysis, "AI Server Cost Analysis - Memory Is The Biggest Loser" (May 2023): an 8-GPU DGX H100
# sells for about $270,000 (networking cards included); per GPU, one eighth.
H100_SERVER = 270_000.0
H100_SERVER_PER_GPU = H100_SERVER / 8
# source: NVIDIA DGX H100 datasheet (2023): system power about 10.2 kW maximum for 8 GPUs.
H100_SERVER_KW_PER_GPU = 10.2 / 8
# source: US EIA, Electric Power Monthly, 2023 average retail price to industrial customers: 8.04 cents/kWh.
ELECTRICITY_PER_KWH = 0.0804
# source: Uptime Institute Global Data Center Survey 2023: average PUE 1.58 (facility energy / IT energy).
PUE = 1.58


def rental(chip: str) -> RentalPrice:
    """The rental price entry for a chip name, with an error that lists the ones there are."""
    try:
        return RENTALS[chip]
    except KeyError:
        raise KeyError(f"coursekit/prices.py: no rental price for {chip!r}; known: {sorted(RENTALS)}") from None


def dollars_per_hour(chip: str) -> float:
    """On-demand $ per accelerator-hour for a chip name (a flat signature for quiz banks)."""
    return rental(chip).dollars_per_hour


def blended_api_price(model: str, input_share: float) -> float:
    """$ per million tokens when `input_share` of the tokens are prompt tokens and the rest output."""
    if not 0.0 <= input_share <= 1.0:
        raise ValueError(f"coursekit/prices.py: input_share must be in [0, 1], got {input_share!r}")
    p = API_PRICES[model]
    return input_share * p.input_per_m + (1.0 - input_share) * p.output_per_m


def bandwidth_per_dollar(chip: str, price: RentalPrice | None = None) -> float:
    """GB/s of memory bandwidth per $/hour of on-demand rent: what bandwidth-bound decode buys.
    `price` picks a dated entry (default: the chip's 2023 entry in RENTALS)."""
    from coursekit.hardware import BY_NAME

    return BY_NAME[chip].memory_tbs * 1000 / (price.dollars_per_hour if price else dollars_per_hour(chip))


# Price history of one vendor's flagship and small models (OpenAI), per million tokens, for Lesson 4.
# Older lists quoted per 1,000 tokens; converted here (x 1,000).
API_HISTORY = [
    ApiPrice("text-davinci-003 (GPT-3.5)", 20.0, 20.0, "28 November 2022",
             "OpenAI pricing page when text-davinci-003 was released (28 November 2022): Davinci models $0.0200 "
             "per 1K tokens, the price set by the cut of 1 September 2022 (text-davinci-003 did not exist before)"),
    ApiPrice("gpt-3.5-turbo", 2.0, 2.0, "1 March 2023",
             "OpenAI, 'Introducing ChatGPT and Whisper APIs' (1 March 2023): $0.002 per 1K tokens"),
    ApiPrice("GPT-4 (8K)", 30.0, 60.0, "14 March 2023",
             "OpenAI API pricing at the GPT-4 launch (14 March 2023): $0.03 / $0.06 per 1K prompt / completion tokens"),
    ApiPrice("GPT-4 Turbo", 10.0, 30.0, "6 November 2023",
             "OpenAI, 'New models and developer products announced at DevDay' (6 November 2023): $0.01 / $0.03 per 1K"),
    ApiPrice("GPT-4o", 5.0, 15.0, "13 May 2024", "OpenAI, 'Hello GPT-4o' (13 May 2024): $5 / $15 per 1M tokens"),
    GPT4O_2024_08,
    GPT4O_MINI,
]
HISTORY = {p.model: p for p in API_HISTORY}


def price_date(price: ApiPrice):
    from datetime import datetime

    return datetime.strptime(price.date, "%d %B %Y").date()


def yearly_price_factor(old_model: str, new_model: str, side: str = "output") -> float:
    """How many times cheaper per year the price fell between two dated API prices (any model in
    API_BY_MODEL), compounded: 1.0 is flat, below 1 a rise."""
    old, new = API_BY_MODEL[old_model], API_BY_MODEL[new_model]
    years = (price_date(new) - price_date(old)).days / 365.25
    if years <= 0:
        raise ValueError(f"coursekit/prices.py: {new_model!r} is not later than {old_model!r}")
    ratio = (old.output_per_m / new.output_per_m) if side == "output" else (old.input_per_m / new.input_per_m)
    return ratio ** (1 / years)


def output_price(model: str) -> float:
    """$ per million output tokens of a model in API_HISTORY (a flat signature for quiz banks)."""
    return HISTORY[model].output_per_m


# ---- Prices after the 2025 cuts ------------------------------------------------------------------
# The 2023-2024 entries above stay: the history is a lesson. These are the newer list prices, per
# accelerator-hour on demand (instance price / accelerators), or per million tokens. Each is dated; run
# `python -m coursekit.prices --stale` to list every entry older than 12 months, i.e. due for a refresh.
AWS_P5_H100_2025 = RentalPrice(
    "NVIDIA H100 SXM", 55.04 / 8, "5 June 2025",
    "AWS What's New, 'Announcing up to 45% price reduction for Amazon EC2 NVIDIA GPU-accelerated instances' "
    "(5 June 2025): p5.48xlarge (8 x H100 SXM) on demand in us-east-1 after the cut, $55.04/hour")
AWS_P6_B200 = RentalPrice(
    "NVIDIA B200 (DGX B200)", 113.93 / 8, "15 May 2025",
    "AWS EC2 P6-B200 instances, generally available 15 May 2025: p6-b200.48xlarge (8 x B200) on demand "
    "in us-east-1, $113.93/hour (AWS pricing page)")
OCI_MI300X = RentalPrice(
    "AMD Instinct MI300X", 6.00, "September 2024",
    "Oracle Cloud Infrastructure compute pricing, BM.GPU.MI300X.8 (8 x MI300X, generally available "
    "September 2024): $6.00 per GPU-hour on demand")
GCP_TPU_V5P = RentalPrice(
    "Google TPU v5p", 4.20, "December 2023",
    "Google Cloud TPU pricing page: TPU v5p $4.20 per chip-hour on demand (us-east5), list price since "
    "v5p launched (6 December 2023)")
GCP_TPU_V6E = RentalPrice(
    "Google TPU v6e (Trillium)", 2.70, "December 2024",
    "Google Cloud TPU pricing page: TPU v6e (Trillium) $2.70 per chip-hour on demand (us-east1), from "
    "general availability (December 2024)")
AWS_TRN2 = RentalPrice(
    "AWS Trainium2", 44.70 / 16, "3 December 2024",
    "AWS EC2 Trn2 pricing (generally available 3 December 2024): trn2.48xlarge (16 x Trainium2) on demand "
    "in us-east-2, $44.70/hour")

# Hyperscaler on-demand list prices: the newest dated price the course has per chip. "Newest" is not
# "current": most are more than a year old (`--stale`, and `course doctor`, name them), so lessons print
# each price with its date.
CURRENT_RENTALS = {p.chip: p for p in (AWS_P5_H100_2025, AWS_P6_B200, OCI_MI300X, GCP_TPU_V5P, GCP_TPU_V6E,
                                       AWS_TRN2, GCP_TPU_V5E, AWS_INF2)}

# GPU clouds ("neoclouds") rent the same H100 for far less than a hyperscaler's on-demand list price.
NEOCLOUD_H100 = [
    RentalPrice("NVIDIA H100 SXM", 2.99, "2025",
                "Lambda on-demand pricing page (2025): 8 x H100 SXM instance, $2.99 per GPU-hour"),
    RentalPrice("NVIDIA H100 SXM", 2.69, "May 2026",
                "RunPod pricing (Secure Cloud, H100 SXM 80GB, $2.69/hour), as listed in Spheron, 'RunPod H100 "
                "Pricing 2026' (22 May 2026)"),
]

API_PRICES_2025 = [
    ApiPrice("GPT-5", 1.25, 10.00, "7 August 2025",
             "OpenAI, 'Introducing GPT-5 for developers' (7 August 2025): $1.25/M input, $10/M output"),
    ApiPrice("GPT-5 mini", 0.25, 2.00, "7 August 2025",
             "OpenAI, 'Introducing GPT-5 for developers' (7 August 2025): $0.25/M input, $2/M output"),
    ApiPrice("Claude Sonnet 4.5", 3.00, 15.00, "29 September 2025",
             "Anthropic, 'Introducing Claude Sonnet 4.5' (29 September 2025): $3/M input, $15/M output"),
    ApiPrice("Claude Haiku 4.5", 1.00, 5.00, "15 October 2025",
             "Anthropic, 'Introducing Claude Haiku 4.5' (15 October 2025): $1/M input, $5/M output"),
    ApiPrice("Gemini 2.5 Pro", 1.25, 10.00, "17 June 2025",
             "Google, Gemini API pricing at Gemini 2.5 general availability (17 June 2025): $1.25/M input, "
             "$10/M output for prompts up to 200k tokens"),
    ApiPrice("Gemini 2.5 Flash", 0.30, 2.50, "17 June 2025",
             "Google, Gemini API pricing at Gemini 2.5 general availability (17 June 2025): $0.30/M input "
             "(text), $2.50/M output"),
]
CURRENT_API_PRICES = {p.model: p for p in API_PRICES_2025}
# Every API price by model name, 2022 to 2025: what yearly_price_factor compares.
API_BY_MODEL = {**HISTORY, CLAUDE35_SONNET.model: CLAUDE35_SONNET, **CURRENT_API_PRICES}
# Like-for-like successors a year apart (same vendor, same tier), for "did prices keep falling?".
SUCCESSORS_2025 = [("GPT-4o (2024-08-06)", "GPT-5"), ("Claude 3.5 Sonnet", "Claude Sonnet 4.5"),
                   ("GPT-4o mini", "GPT-5 mini")]


def current_rental(chip: str) -> RentalPrice:
    """The newest dated on-demand list price the course has for a chip name (print its date with it), with
    an error that lists the ones there are."""
    try:
        return CURRENT_RENTALS[chip]
    except KeyError:
        raise KeyError(f"coursekit/prices.py: no current rental price for {chip!r}; "
                       f"known: {sorted(CURRENT_RENTALS)}") from None


def current_dollars_per_hour(chip: str) -> float:
    return current_rental(chip).dollars_per_hour


def all_entries() -> list:
    """Every dated price in this module, wherever it is kept (a test checks each has a source and date)."""
    found, seen = [], set()

    def add(p):
        if isinstance(p, (RentalPrice, ApiPrice)) and id(p) not in seen:
            seen.add(id(p))
            found.append(p)

    for value in list(globals().values()):
        if isinstance(value, dict):
            for v in value.values():
                add(v)
        elif isinstance(value, (list, tuple)):
            for v in value:
                add(v)
        else:
            add(value)
    return found


def entry_date(date: str):
    """The *last* day a date string can mean ("2023" -> 31 Dec 2023), so "older than" is never overstated."""
    import calendar
    from datetime import date as _date, datetime

    for fmt in ("%d %B %Y", "%B %Y", "%Y"):
        try:
            d = datetime.strptime(date.strip(), fmt).date()
        except ValueError:
            continue
        if fmt == "%B %Y":
            return d.replace(day=calendar.monthrange(d.year, d.month)[1])
        if fmt == "%Y":
            return _date(d.year, 12, 31)
        return d
    raise ValueError(f"coursekit/prices.py: cannot read the date {date!r} (use '5 June 2025', 'June 2025' or '2025')")


FILE = "coursekit/prices.py"   # where a stale entry is updated (course doctor and --stale name it)


def entry_name(p) -> str:
    """The name an entry has in this file: its variable, or its container and index ("API_HISTORY[2]")."""
    for name, value in globals().items():
        if value is p and not name.startswith("_"):
            return name
    for name, value in globals().items():
        if isinstance(value, (list, tuple)) and any(v is p for v in value):
            return f"{name}[{next(i for i, v in enumerate(value) if v is p)}]"
        if isinstance(value, dict) and any(v is p for v in value.values()):
            return f"{name}[{next(k for k, v in value.items() if v is p)!r}]"
    return repr(p)


def stale_entries(today=None, months: int = 12) -> list:
    """Entries whose date is more than `months` months before `today` (default: today's date)."""
    from datetime import date as _date

    today = today or _date.today()
    if months <= 0 or months % 12:
        raise ValueError(f"coursekit/prices.py: months must be a positive multiple of 12, got {months!r}")
    year = today.year - months // 12
    cutoff = today.replace(year=year, day=28) if (today.month, today.day) == (2, 29) else today.replace(year=year)
    return [p for p in all_entries() if entry_date(p.date) < cutoff]


def main(argv: list[str] | None = None) -> int:
    import argparse

    parser = argparse.ArgumentParser(description="Check the dated price table in coursekit/prices.py.")
    parser.add_argument("--stale", action="store_true", help="list entries older than 12 months (due for a refresh)")
    args = parser.parse_args(argv)
    entries = stale_entries() if args.stale else all_entries()
    for p in sorted(entries, key=lambda p: entry_date(p.date)):
        what = p.chip if isinstance(p, RentalPrice) else p.model
        print(f"{FILE}  {entry_name(p):<26} {p.date:>18}  {what:<32} {p.source.split(':')[0][:70]}")
    if args.stale:
        print(f"{len(entries)} of {len(all_entries())} price entries are older than 12 months (update them in {FILE})")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())


def price_cut_factor(chip: str) -> float:
    """How many times cheaper a chip's newest on-demand list price is than its 2023 one (flat, for quiz banks)."""
    return rental(chip).dollars_per_hour / current_rental(chip).dollars_per_hour
