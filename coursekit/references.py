"""Every paper, report and web page the lessons, quizzes and labs cite, for the reading list.

Lessons cite a paper as "First-author et al. YEAR" (or "A and B YEAR"); `key` is that surname and year,
and tests/content/test_reading_list.py checks that every such citation in the course is listed here. Chip
datasheets and price pages are not repeated here: the reading list takes them from coursekit.hardware
and coursekit.prices, where each number is stored with its source.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Reference:
    key: str        # "Kaplan 2020": first author's surname and year, as lessons cite it
    authors: str
    title: str
    venue: str
    link: str


def _r(key, authors, title, venue, link):
    return Reference(key, authors, title, venue, link)


ARXIV = "https://arxiv.org/abs/"
PAPERS = [
    _r("Abts 2020", "Abts et al.", "Think Fast: A Tensor Streaming Processor (TSP) for Accelerating Deep Learning Workloads",
       "ISCA 2020", "https://doi.org/10.1109/ISCA45697.2020.00023"),
    _r("Agrawal 2023", "Agrawal et al.", "SARATHI: Efficient LLM Inference by Piggybacking Decodes with Chunked Prefills",
       "2023", ARXIV + "2308.16369"),
    _r("Agrawal 2024", "Agrawal et al.", "Taming Throughput-Latency Tradeoff in LLM Inference with Sarathi-Serve",
       "OSDI 2024", ARXIV + "2403.02310"),
    _r("Ainslie 2023", "Ainslie et al.", "GQA: Training Generalized Multi-Query Transformer Models from Multi-Head Checkpoints",
       "EMNLP 2023", ARXIV + "2305.13245"),
    _r("Al-Fares 2008", "Al-Fares, Loukissas and Vahdat", "A Scalable, Commodity Data Center Network Architecture",
       "SIGCOMM 2008", "https://doi.org/10.1145/1402958.1402967"),
    _r("Allal 2025", "Allal et al.", "SmolLM2: When Smol Goes Big", "2025", ARXIV + "2502.02737"),
    _r("Besiroglu 2024", "Besiroglu et al.", "Chinchilla Scaling: A replication attempt", "2024", ARXIV + "2404.10102"),
    _r("Brown 2020", "Brown et al.", "Language Models are Few-Shot Learners (GPT-3)", "NeurIPS 2020", ARXIV + "2005.14165"),
    _r("Cai 2024", "Cai et al.", "Medusa: Simple LLM Inference Acceleration Framework with Multiple Decoding Heads",
       "ICML 2024", ARXIV + "2401.10774"),
    _r("Chen 2024", "Chen, Tiwari, Sadhukhan et al.",
       "MagicDec: Breaking the Latency-Throughput Tradeoff for Long Context Generation with Speculative Decoding",
       "2024 (ICLR 2025)", ARXIV + "2408.11049"),
    _r("Chen 2023", "Chen et al.", "Accelerating Large Language Model Decoding with Speculative Sampling", "2023",
       ARXIV + "2302.01318"),
    _r("Chowdhery 2022", "Chowdhery et al.", "PaLM: Scaling Language Modeling with Pathways (MFU, Appendix B)", "2022",
       ARXIV + "2204.02311"),
    _r("Daly 2006", "Daly", "A higher order estimate of the optimum checkpoint interval for restart dumps",
       "Future Generation Computer Systems 22(3), 2006", "https://doi.org/10.1016/j.future.2004.11.016"),
    _r("Dao 2022", "Dao et al.", "FlashAttention: Fast and Memory-Efficient Exact Attention with IO-Awareness",
       "NeurIPS 2022", ARXIV + "2205.14135"),
    _r("DeepSeek-AI 2024", "DeepSeek-AI", "DeepSeek-V3 Technical Report", "2024", ARXIV + "2412.19437"),
    _r("Dettmers 2022", "Dettmers et al.", "LLM.int8(): 8-bit Matrix Multiplication for Transformers at Scale",
       "NeurIPS 2022", ARXIV + "2208.07339"),
    _r("Dubey 2024", "Dubey, Grattafiori et al. (Llama Team, Meta)", "The Llama 3 Herd of Models", "2024",
       ARXIV + "2407.21783"),
    _r("Grattafiori 2024", "Grattafiori et al. (Llama Team, Meta)", "The Llama 3 Herd of Models (same report as Dubey 2024)",
       "2024", ARXIV + "2407.21783"),
    _r("Elhoushi 2024", "Elhoushi et al.", "LayerSkip: Enabling Early Exit Inference and Self-Speculative Decoding",
       "ACL 2024", ARXIV + "2404.16710"),
    _r("Fedus 2022", "Fedus, Zoph and Shazeer", "Switch Transformers: Scaling to Trillion Parameter Models with Simple "
       "and Efficient Sparsity", "JMLR 23, 2022", ARXIV + "2101.03961"),
    _r("Frantar 2023", "Frantar et al.", "GPTQ: Accurate Post-Training Quantization for Generative Pre-trained Transformers",
       "ICLR 2023", ARXIV + "2210.17323"),
    _r("Gemini Team 2023", "Gemini Team, Google", "Gemini: A Family of Highly Capable Multimodal Models", "2023",
       ARXIV + "2312.11805"),
    _r("Hendrycks 2021", "Hendrycks et al.", "Measuring Massive Multitask Language Understanding (MMLU)", "ICLR 2021",
       ARXIV + "2009.03300"),
    _r("Ho 2024", "Ho et al.", "Algorithmic progress in language models", "2024", ARXIV + "2403.05812"),
    _r("Hoffmann 2022", "Hoffmann et al.", "Training Compute-Optimal Large Language Models (Chinchilla)", "2022",
       ARXIV + "2203.15556"),
    _r("Holmes 2024", "Holmes et al.",
       "DeepSpeed-FastGen: High-throughput Text Generation for LLMs via MII and DeepSpeed-Inference (Dynamic SplitFuse)",
       "2024", ARXIV + "2401.08671"),
    _r("Huang 2019", "Huang et al.", "GPipe: Efficient Training of Giant Neural Networks using Pipeline Parallelism",
       "NeurIPS 2019", ARXIV + "1811.06965"),
    _r("Jacob 2018", "Jacob et al.", "Quantization and Training of Neural Networks for Efficient Integer-Arithmetic-Only "
       "Inference", "CVPR 2018", ARXIV + "1712.05877"),
    _r("Jiang 2023", "Jiang et al.", "Mistral 7B", "2023", ARXIV + "2310.06825"),
    _r("Jiang 2024", "Jiang et al.", "Mixtral of Experts", "2024", ARXIV + "2401.04088"),
    _r("Jouppi 2017", "Jouppi et al.", "In-Datacenter Performance Analysis of a Tensor Processing Unit", "ISCA 2017",
       ARXIV + "1704.04760"),
    _r("Jouppi 2023", "Jouppi et al.", "TPU v4: An Optically Reconfigurable Supercomputer for Machine Learning with "
       "Hardware Support for Embeddings", "ISCA 2023", ARXIV + "2304.01433"),
    _r("Kaplan 2020", "Kaplan et al.", "Scaling Laws for Neural Language Models", "2020", ARXIV + "2001.08361"),
    _r("Kingma 2015", "Kingma and Ba", "Adam: A Method for Stochastic Optimization", "ICLR 2015", ARXIV + "1412.6980"),
    _r("Korthikanti 2022", "Korthikanti et al.", "Reducing Activation Recomputation in Large Transformer Models",
       "MLSys 2023", ARXIV + "2205.05198"),
    _r("Kwon 2023", "Kwon et al.", "Efficient Memory Management for Large Language Model Serving with PagedAttention",
       "SOSP 2023", ARXIV + "2309.06180"),
    _r("Leiserson 1985", "Leiserson", "Fat-trees: Universal Networks for Hardware-Efficient Supercomputing",
       "IEEE Transactions on Computers C-34(10), 1985", "https://doi.org/10.1109/TC.1985.6312192"),
    _r("Lepikhin 2021", "Lepikhin et al.", "GShard: Scaling Giant Models with Conditional Computation and Automatic "
       "Sharding", "ICLR 2021", ARXIV + "2006.16668"),
    _r("Leviathan 2023", "Leviathan, Kalman and Matias", "Fast Inference from Transformers via Speculative Decoding",
       "ICML 2023", ARXIV + "2211.17192"),
    _r("Li 2020", "Li et al.", "PyTorch Distributed: Experiences on Accelerating Data Parallel Training",
       "VLDB 2020", ARXIV + "2006.15704"),
    _r("Li 2024", "Li et al.", "EAGLE: Speculative Sampling Requires Rethinking Feature Uncertainty", "ICML 2024",
       ARXIV + "2401.15077"),
    _r("Loshchilov 2019", "Loshchilov and Hutter", "Decoupled Weight Decay Regularization (AdamW)", "ICLR 2019",
       ARXIV + "1711.05101"),
    _r("MaxText 2024", "Google (AI-Hypercomputer)", "MaxText: runtime performance results (TPU v5p MFU)", "2024",
       "https://github.com/AI-Hypercomputer/maxtext"),
    _r("Ma 2025", "Ma et al.", "BitNet b1.58 2B4T Technical Report", "2025", ARXIV + "2504.12285"),
    _r("Micikevicius 2018", "Micikevicius et al.", "Mixed Precision Training", "ICLR 2018", ARXIV + "1710.03740"),
    _r("Micikevicius 2022", "Micikevicius et al.", "FP8 Formats for Deep Learning", "2022", ARXIV + "2209.05433"),
    _r("Mohan 2021", "Mohan, Phanishayee and Chidambaram", "CheckFreq: Frequent, Fine-Grained DNN Checkpointing",
       "FAST 2021", "https://www.usenix.org/conference/fast21/presentation/mohan"),
    _r("Narayanan 2021", "Narayanan et al.", "Efficient Large-Scale Language Model Training on GPU Clusters Using "
       "Megatron-LM", "SC 2021", ARXIV + "2104.04473"),
    _r("Patarasuk 2009", "Patarasuk and Yuan", "Bandwidth optimal all-reduce algorithms for clusters of workstations",
       "Journal of Parallel and Distributed Computing 69(2), 2009", "https://doi.org/10.1016/j.jpdc.2008.09.002"),
    _r("Patel 2024", "Patel et al.", "Splitwise: Efficient Generative LLM Inference Using Phase Splitting", "ISCA 2024",
       ARXIV + "2311.18677"),
    _r("Pope 2022", "Pope et al.", "Efficiently Scaling Transformer Inference", "MLSys 2023", ARXIV + "2211.05102"),
    _r("Rajbhandari 2020", "Rajbhandari et al.", "ZeRO: Memory Optimizations Toward Training Trillion Parameter Models",
       "SC 2020", ARXIV + "1910.02054"),
    _r("SemiAnalysis 2024", "SemiAnalysis", "MI300X vs H100 vs H200 Benchmark Part 1: Training "
       "(CUDA Moat Still Alive)", "December 2024", "https://semianalysis.com/2024/12/22/mi300x-vs-h100-vs-h200-benchmark-part-1-training/"),
    _r("Sardana 2024", "Sardana, Portes, Doubov and Frankle", "Beyond Chinchilla-Optimal: Accounting for Inference in Language Model Scaling "
       "Laws", "ICML 2024", ARXIV + "2401.00448"),
    _r("Sevilla 2024", "Sevilla and Roldan", "Training Compute of Frontier AI Models Grows by 4-5x per Year",
       "Epoch AI, May 2024", "https://epoch.ai/blog/training-compute-of-frontier-ai-models-grows-by-4-5x-per-year"),
    _r("Shazeer 2017", "Shazeer et al.", "Outrageously Large Neural Networks: The Sparsely-Gated Mixture-of-Experts Layer",
       "ICLR 2017", ARXIV + "1701.06538"),
    _r("Shoeybi 2019", "Shoeybi et al.", "Megatron-LM: Training Multi-Billion Parameter Language Models Using Model "
       "Parallelism", "2019", ARXIV + "1909.08053"),
    _r("Thakur 2005", "Thakur, Rabenseifner and Gropp", "Optimization of Collective Communication Operations in MPICH",
       "International Journal of High Performance Computing Applications 19(1), 2005",
       "https://doi.org/10.1177/1094342005051521"),
    _r("Touvron 2023", "Touvron et al.", "LLaMA: Open and Efficient Foundation Language Models (2023a) and Llama 2: Open "
       "Foundation and Fine-Tuned Chat Models (2023b)", "2023", ARXIV + "2302.13971 and " + ARXIV + "2307.09288"),
    _r("Wang 2023", "Wang et al.", "GEMINI: Fast Failure Recovery in Distributed Training with In-Memory Checkpoints",
       "SOSP 2023", "https://doi.org/10.1145/3600006.3613145"),
    _r("Williams 2009", "Williams, Waterman and Patterson", "Roofline: An Insightful Visual Performance Model for "
       "Multicore Architectures", "Communications of the ACM 52(4), 2009", "https://doi.org/10.1145/1498765.1498785"),
    _r("Young 1974", "Young", "A first order approximation to the optimum checkpoint interval",
       "Communications of the ACM 17(9), 1974", "https://doi.org/10.1145/361147.361115"),
    _r("Yu 2022", "Yu et al.", "Orca: A Distributed Serving System for Transformer-Based Generative Models", "OSDI 2022",
       "https://www.usenix.org/conference/osdi22/presentation/yu"),
    _r("Zhao 2023", "Zhao et al.", "PyTorch FSDP: Experiences on Scaling Fully Sharded Data Parallel", "VLDB 2023",
       ARXIV + "2304.11277"),
    _r("Zheng 2024", "Zheng et al.", "SGLang: Efficient Execution of Structured Language Model Programs (RadixAttention)",
       "NeurIPS 2024", ARXIV + "2312.07104"),
    _r("Zhong 2024", "Zhong et al.", "DistServe: Disaggregating Prefill and Decoding for Goodput-optimized Large Language "
       "Model Serving", "OSDI 2024", ARXIV + "2401.09670"),
]
BY_KEY = {r.key: r for r in PAPERS}
