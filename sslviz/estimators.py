"""Every estimator of sslviz, importable from one place.

``from sslviz.estimators import SemiSupervisedNB, Yarowsky, ...``: the scikit-learn-style models
the lectures fit, each defined in the module of its algorithm family (listed beside it). They
share scikit-learn's contract: ``fit(X, y)`` with ``y == -1`` marking an unlabeled row,
``predict``/``predict_proba`` (or ``transform``), a ``random_state`` where they draw, and a
``trace_`` of what the fit really did, one record per iteration.
"""

from __future__ import annotations

from .cem import CEMClassifier, GaussianCEM  # classification EM (Amini & Gallinari)
from .co_training import (  # co-training with two views (Blum & Mitchell)
    CoTraining,
    TrainedVocabularyNB,
)
from .decision_list import DecisionList  # Yarowsky's decision lists
from .em import SemiSupervisedNB  # EM with multinomial Naive Bayes (Nigam et al.)
from .entropy_reg import EntropyRegularizedLR  # entropy regularization (Grandvalet & Bengio)
from .feature_selection import FeatureSelector  # label-based feature scores
from .fisher import FisherKernelNB  # the Fisher kernel of an NB mixture (Takamura & Okumura)
from .hybrid import HybridNB  # the hybrid generative/discriminative model (Fujino et al.)
from .kernel_expansion import (  # kernel expansions, EM and MED (Szummer & Jaakkola)
    KernelExpansion,
    KernelExpansionClassifier,
)
from .label_propagation import GraphPropagation  # harmonic propagation, label spreading
from .logistic_cem import LogisticCEM  # logistic classification EM (Amini & Gallinari)
from .self_training import SelfTraining  # self-training / bootstrapping
from .sgt import SpectralGraphTransducer  # the spectral graph transducer (Joachims)
from .tsvm import TransductiveSVM  # the transductive SVM (Joachims)
from .yarowsky import Yarowsky  # Yarowsky's algorithm

__all__ = ["CEMClassifier", "CoTraining", "DecisionList", "EntropyRegularizedLR",
           "FeatureSelector", "FisherKernelNB", "GaussianCEM", "GraphPropagation", "HybridNB",
           "KernelExpansion", "KernelExpansionClassifier", "LogisticCEM", "SelfTraining",
           "SemiSupervisedNB", "SpectralGraphTransducer", "TrainedVocabularyNB", "TransductiveSVM",
           "Yarowsky"]
