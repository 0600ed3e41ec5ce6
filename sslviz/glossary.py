"""The course's glossary: each term with a short definition and the lecture that introduces it.

The site (:mod:`sslviz.site_reference`) builds ``glossary.html`` from :data:`TERMS` and links the
first occurrence of each term on every lecture page to its entry. ``pattern`` is the regular
expression that finds the term in a lecture's prose (case-insensitive, whole words).
"""

from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Term:
    """One glossary entry: ``key`` is its anchor on the glossary page."""

    key: str
    name: str
    definition: str
    lecture: int
    pattern: str


TERMS = (
    Term("labeled-data", "labeled and unlabeled data",
         "Labeled examples come with their class, given by a person; unlabeled examples are "
         "inputs alone. Semi-supervised learning uses both, usually few of the first and many of "
         "the second.", 1, r"unlabeled (?:data|documents|examples|posts|points)"),
    Term("ssl", "semi-supervised learning",
         "Learning a classifier from a small labeled set together with a large unlabeled set, in "
         "the hope that the unlabeled inputs say something about where the classes lie.", 1,
         r"semi-supervised learning"),
    Term("cluster-assumption", "cluster assumption",
         "The bet that examples joined by a chain of close examples share a class, so that a "
         "class boundary should run through sparse regions of the data.", 1,
         r"cluster assumption"),
    Term("label-spreading", "label spreading",
         "A graph method (Zhou et al.): every point repeatedly takes a weighted average of its "
         "neighbours' label scores and keeps part of its own starting label, so the given labels "
         "may be overruled.", 1, r"label spreading"),
    Term("self-training", "self-training",
         "A loop that trains a classifier on the labeled set, labels the unlabeled examples it is "
         "most sure about, adds them to the training set and trains again.", 2,
         r"self-training"),
    Term("pseudo-label", "pseudo-label",
         "A class a model assigned to an unlabeled example and that is then used for training as "
         "if a person had given it.", 2, r"pseudo-labels?"),
    Term("decision-list", "decision list",
         "A classifier made of rules (\"this word near the target means this sense\"), sorted by "
         "how reliable each rule is; the first rule that applies decides.", 3,
         r"decision lists?"),
    Term("yarowsky", "Yarowsky's algorithm",
         "Self-training for word senses: a few seed collocations label some occurrences, a "
         "decision list learned from them labels more, and every round judges all labels anew.",
         3, r"Yarowsky's algorithm"),
    Term("naive-bayes", "naive Bayes (multinomial)",
         "A generative classifier that treats a document as words drawn independently from a "
         "class-specific word distribution and classifies with Bayes' rule.", 4,
         r"naive Bayes"),
    Term("em", "EM (expectation-maximisation)",
         "An iterative method for fitting a model with hidden quantities: the E-step fills them "
         "in with their probabilities under the current model, the M-step refits the model to "
         "the filled-in data. With naive Bayes, the hidden quantities are the unlabeled "
         "documents' classes.", 4, r"(?-i:\bEM\b)"),
    Term("smoothing", "smoothing (α)",
         "A pseudo-count added to every word count so that a word unseen in a class does not get "
         "probability zero; α = 1 is Laplace smoothing.", 4, r"smoothing"),
    Term("unlabeled-weight", "weight of the unlabeled data (λ)",
         "A factor in [0, 1] on the unlabeled documents' share of the EM counts (EM-λ), so that "
         "many unlabeled documents cannot outvote the few labeled ones.", 4, r"EM-λ"),
    Term("feature-selection", "feature selection",
         "Keeping only some of the words (features), chosen by a score such as document "
         "frequency or mutual information with the class.", 5, r"feature selection"),
    Term("fisher-kernel", "Fisher kernel",
         "A similarity between two inputs computed from the gradients of a generative model's "
         "log-likelihood (the Fisher scores), which a discriminative classifier such as an SVM "
         "can use.", 6, r"Fisher kernels?"),
    Term("tsvm", "transductive SVM",
         "A support vector machine that also places the unlabeled examples, with labels it "
         "chooses, outside its margin.", 6, r"transductive SVMs?"),
    Term("cem", "classification EM (CEM)",
         "A variant of EM that, between the E- and M-steps, gives each unlabeled example its "
         "single most probable class (a hard assignment) instead of a probability for each.", 7,
         r"(?-i:\bCEM\b)"),
    Term("kernel-expansion", "kernel expansion (membership probabilities)",
         "A classifier written as a sum over kernel bumps centred on all examples, labeled and "
         "unlabeled: the bumps give each input its membership probabilities P(i | x), and in "
         "Szummer and Jaakkola's version each bump carries its own label distribution, fitted to "
         "the labeled examples.", 8, r"kernel expansions?|membership probabilities"),
    Term("generative-discriminative", "generative and discriminative classifiers",
         "A generative classifier models how inputs of each class arise, P(x | class); a "
         "discriminative one models P(class | x) directly.", 9,
         r"generative models?|discriminative classifiers?"),
    Term("entropy-regularisation", "entropy regularisation",
         "A penalty on the uncertainty of a discriminative model's predictions on the unlabeled "
         "examples, which pushes its boundary away from them.", 9,
         r"entropy (?:regularization|regularisation|regularizer|minimization)"),
    Term("co-training", "co-training",
         "Two classifiers, each on its own view of the examples (for a web page, its words and "
         "the words of the links to it), label unlabeled examples for each other.", 10,
         r"co-training"),
    Term("label-propagation", "label propagation (harmonic)",
         "A graph method in which the labeled points keep their labels and each unlabeled "
         "point's label score is the weighted average of its neighbours'.", 11,
         r"(?:harmonic )?label propagation"),
    Term("sgt", "spectral graph transducer",
         "Joachims' graph method: cut the graph of all examples in two where few edges cross, "
         "respecting the given labels, using the graph's smoothest eigenvectors.", 11,
         r"spectral graph transducer"),
    Term("evidence", "evidence (marginal likelihood)",
         "How probable the labeled data are under a prior with the parameters integrated out; "
         "it scores a setting such as naive Bayes' α without holding any document out.", 12,
         r"the evidence"),
    Term("leave-one-out", "leave-one-out",
         "A criterion that fits the model once per labeled example with that example held out "
         "and scores the prediction for it.", 12, r"leave-one-out"),
    Term("regret", "regret",
         "How much test accuracy a criterion's choice gives away against the best setting in "
         "hindsight; reported to judge a criterion, never used to choose.", 12, r"regret"),
)
"""The glossary's terms, in the order of the lectures that introduce them."""
