"""Module 2 lessons: structure, errata notes, and the numbers their prose states match coursekit.

Executing every notebook is tests/content/test_notebooks.py's job; here each test quotes the sentence it pins,
so a changed input (a datasheet figure, a paper's count) that makes the prose wrong fails here.
"""
from __future__ import annotations

import pytest

from coursekit import hardware
from coursekit.calc import cluster_plan, parallelism as par, precision, training_run as run
from lesson_text import Lessons
from paths import ROOT

FOLDER = ROOT / "course" / "m2-training-chips"
LESSONS = ["01-training-silicon", "02-parallelism", "03-interconnect", "04-failure-at-scale"]
M2 = Lessons("m2-training-chips")


@pytest.mark.parametrize("index, name", list(enumerate(LESSONS, 1)))
def test_lesson_structure(index, name):
    assert "**Learning objectives.**" in M2.nb(name).cells[0].source
    M2.check_structure(name, f"m2-l{index}", ("## Key terms", "## Summary", "Errata (training-chips lesson)"))
    assert "seed" not in M2.markdown(name).lower()          # sources are cited by title, never as "seed NNN"


def test_errata_document_lists_each_lesson():
    errata = (FOLDER.parent.parent / "docs" / "errata" / "m2.md").read_text()
    for lesson in ("Lesson 1", "Lesson 2", "Lesson 3", "Lesson 4"):
        assert lesson in errata


def test_lesson1_generation_ratios_and_fp8():
    text = M2.markdown(LESSONS[0])
    # "the datasheets' dense BF16 ratio is 3.17x ... FP8 against A100 BF16 is 6.3x at peak"
    assert "3.17x" in text and "6.3x" in text
    assert f"{precision.peak_ratio('NVIDIA H100 SXM', 'NVIDIA A100 SXM 80GB'):.2f}" == "3.17"
    assert f"{precision.peak_ratio('NVIDIA H100 SXM', 'NVIDIA A100 SXM 80GB', 'FP8'):.1f}" == "6.3"
    # "A100 312, H100 989, B200 2,250 TFLOP/s BF16"
    assert "A100 312, H100 989, B200 2,250" in text
    assert [c.bf16_tflops for c in hardware.TRAINING_CHIPS] == [312, 989, 2250]
    # "E4M3's largest value is 448 and its smallest normal value 1/64"
    assert "largest value is 448" in text and "smallest normal value 1/64" in text
    assert precision.format_range("FP8 E4M3") == {"max": 448.0, "smallest_normal": 1 / 64, "bits": 8}


def test_lesson1_mfu_and_llama2_throughput():
    text = M2.markdown(LESSONS[0])
    # "gives about 43% of the A100's dense BF16 peak"; "about 0.65M tokens/s ... about 10,000 GPUs"
    assert "about 43%" in text and round(run.published_mfu("Llama 2 70B"), 2) == 0.43
    assert "about 0.65M tokens/s" in text and "about 10,000 GPUs" in text
    r = run.RUNS_BY_NAME["Llama 2 70B"]
    assert run.tokens_per_second(r.n_tokens, r.gpu_hours, 2000) == pytest.approx(0.65e6, rel=0.01)
    assert 3.3e6 / run.tokens_per_second(r.n_tokens, r.gpu_hours, 1) == pytest.approx(10_000, rel=0.03)
    # "Llama 3 405B reports 38-43% on H100s"
    assert "38-43%" in text


def test_lesson2_zero_figure_and_gpt3_state():
    text = M2.markdown(LESSONS[1])
    # "120, 31.4, 16.6 and 1.9 GB: the paper's numbers"
    assert "120, 31.4, 16.6 and 1.9 GB" in text
    assert [round(par.zero_total_gb(7.5e9, 64, s), 1) for s in range(4)] == [120.0, 31.4, 16.6, 1.9]
    # "stages 1 and 2 can never fit ...: stage 2 still keeps every BF16 weight (2 bytes per parameter, 200 GB), and
    # plain DP and stage 1 keep the gradients too (2 + 2 bytes, 400 GB)"
    flat = " ".join(text.split())
    assert "stages 1 and 2 can never fit" in flat and "2 bytes per parameter, 200 GB" in flat and "(2 + 2 bytes, 400 GB)" in flat
    assert par.zero_memory(100e9, 10**6, 1)["total"] == pytest.approx(400e9, rel=1e-4)
    assert par.zero_memory(100e9, 10**6, 2)["total"] == pytest.approx(200e9, rel=1e-4)
    assert par.zero_memory(100e9, 10**6, 3)["total"] < 80e9
    # errata: 2.8 TB is all 16 bytes; the FP32 optimizer state is 2.1 TB
    assert "2.1 TB" in text
    assert par.zero_part_bytes(175e9, 1, 0, "total") == 2.8e12 and par.zero_part_bytes(175e9, 1, 0, "optimizer") == 2.1e12


def test_lesson3_link_ratios_and_tp():
    text = M2.markdown(LESSONS[2])
    # "NVLink 4 is 450 GB/s each way, NDR 50 GB/s: 9x apart per H100"
    assert "450 GB/s each way, NDR 50 GB/s: 9x apart" in text
    assert hardware.NVLINK4.one_way_gbs / hardware.IB_NDR.one_way_gbs == 9
    # "two levels connect k^2/2 endpoints ... a few thousand GPUs fit in two levels"
    assert cluster_plan.fat_tree_endpoints(64, 2) == 2048 and cluster_plan.fat_tree_endpoints(64, 3) == 65536
    # "it takes hundreds of microseconds" (one TP all-reduce of a 4,096-token layer on NVLink)
    assert "hundreds of microseconds" in text
    one = par.allreduce_on_link(4096 * 10240 * 2, 8, hardware.NVLINK4)
    assert 100e-6 < one < 1e-3
    # "over one InfiniBand port per GPU it takes longer than the compute it serves"
    assert par.tp_comm_over_compute(10240, 16, hardware.IB_NDR.name) > 1 > par.tp_comm_over_compute(10240, 8, hardware.NVLINK4.name)


def test_lesson4_failure_numbers():
    text = M2.markdown(LESSONS[3])
    # "Llama 3's run stopped every 3.1 hours"; "fails once in about six years"
    assert "every 3.1 hours" in text and f"{run.llama3_cluster_mtbf_hours():.1f}" == "3.1"
    assert "about six years" in text
    years = run.gpu_mtbf_from_observed(54, 16384, 419) / 8766
    assert 5.5 < years < 6.0
    # "With 10 s checkpoints the loss is under 2%; at 300 s it passes 8%" (2,048 GPUs)
    mtbf = run.cluster_mtbf_hours(run.gpu_mtbf_from_observed(54, 16384, 419), 2048) * 3600
    waste = {c: run.wasted_fraction(run.young_interval(c, mtbf), c, mtbf) for c in (10, 300)}
    assert "under 2%; at 300 s it passes 8%" in text and 0.08 < waste[300] < 0.09 and waste[10] < 0.02


def test_lesson1_beyond_nvidia_prose_matches_the_numbers():
    from coursekit.calc import survey

    text = " ".join(" ".join(c.source.replace("\n>", "\n") for c in M2.nb("01-training-silicon").cells
                             if c.cell_type == "markdown").split())
    # "a 288 GB MI355X holds a 70B training state on 4 chips, a TPU v5p, 95 GiB or 102 GB, needs 11"
    assert "on 4 chips, a TPU v5p, 95 GiB or 102 GB, needs 11" in text
    assert survey.min_chips_for_training_state("AMD Instinct MI355X", 70e9) == 4
    assert survey.min_chips_for_training_state("Google TPU v5p", 70e9) == 11
    assert hardware.MI355X.memory_gb == 288 and hardware.TPU_V5P.memory_gb == pytest.approx(95 * 2**30 / 1e9)
    assert round(hardware.TPU_V5P.memory_gb) == 102
    # errata (4): the old count read 95 GiB as 95 GB
    assert "needed 12 chips for the 70B training state" in text and "the fewest chips is 11" in text
    assert -(-70e9 * 16 // 95e9) == 12
    # The days use each platform's own MFU: "(an MI355X and a GB200 do [overlap], printed below)"
    assert "overlap (an MI355X and a GB200 do, printed below)" in text
    mi, gb = (survey.training_row(c, 70e9, 2e12, 1024) for c in (hardware.MI355X, hardware.GB200_GPU))
    assert mi["days_best"] <= gb["days_worst"] and gb["days_best"] <= mi["days_worst"]
    assert mi["mfu"] != gb["mfu"], "one MFU for every vendor makes the table a ratio of peaks"
    assert text.count("scale with dense BF16 peak alone") == 1      # quoted once, in the errata note
    # "Llama 3's 38-43% on H100s", "PaLM's 46% on TPU v4", "MaxText's 64-71% on TPU v5p": in the MFU table's sources
    for quoted, chip in (("38-43%", hardware.H100_SXM), ("46.2%", hardware.TPU_V4), ("64-71%", hardware.TPU_V5P)):
        assert quoted in survey.MFU_BY_PLATFORM[chip.name].measured
    assert "Llama 3's 38-43% on H100s" in text and "PaLM's 46% on TPU v4" in text and "MaxText's 64-71% on TPU v5p" in text
    # The errata: MI300X "192 GB against the H200's 141 GB"; Blackwell Ultra "carries 288 GB too"
    assert "192 GB against the H200's 141 GB" in text and "carries 288 GB too" in text
    assert (hardware.MI300X.memory_gb, hardware.H200_SXM.memory_gb) == (192, 141)
    assert hardware.GB300_GPU.memory_gb == hardware.MI355X.memory_gb == 288
    assert "more HBM per GPU than any NVIDIA part" not in text.split("Errata")[0]
    # Links: "a seventh of it" for one peer on AMD; NVSwitch gives any peer the full rate
    assert "a seventh of it" in text and hardware.MI300X.peer_links == 7
    assert hardware.MI300X.interconnect_peer_one_way_gbs == 64 and round(hardware.MI355X.interconnect_peer_one_way_gbs) == 77
    assert hardware.H100_SXM.interconnect_peer_one_way_gbs == hardware.H100_SXM.interconnect_one_way_gbs
    # pods of "4,096 for v4, 8,960 for v5p, 9,216 for Ironwood"; "72 in a GB200 NVL72 rack, 64 chips in a Trn2 UltraServer"
    assert "(4,096 for v4, 8,960 for v5p, 9,216 for Ironwood)" in text
    assert [hardware.TPU_V4_POD.n_chips, hardware.TPU_V5P_POD.n_chips, hardware.IRONWOOD_POD.n_chips] == [4096, 8960, 9216]
    assert "72 in a GB200\nor GB300 NVL72 rack".replace("\n", " ") in text and hardware.GB200_NVL72.n_chips == 72
    assert hardware.GB300_NVL72.n_chips == 72
    assert "64 chips in a Trn2 UltraServer" in text and hardware.TRN2_ULTRASERVER.n_chips == 64
    # "NVLink 5's 1.8 TB/s" both ways; the one-way figure is half
    assert "NVLink 5's 1.8 TB/s" in text and hardware.GB200_GPU.interconnect_gbs == 1800
