"""The public names of the package and of the modules users import from, kept on
purpose: each is listed here, so removing one (or forgetting a rename's alias)
fails a test, and a new one is added to the list knowingly. A renamed public name
stays one release as an alias that warns (DeprecationWarning), as Gymnasium and
PettingZoo do; its tests are below."""

from __future__ import annotations

import importlib
import warnings

import pytest

#: Each module's public names (its ``__all__``), as users may import them.
PUBLIC = {
    "aluette_env": [
        "AGENTS", "NUM_CARDS", "OBS_LAYOUT", "OBS_SIZE", "STRENGTH", "VectorGame", "__version__",
        "card_name", "decode_observation", "duplicate_eval", "env", "load_player", "raw_env",
    ],
    "aluette_env.observation": [
        "ACTIVE_PAD", "HIDDEN_PAD", "HIDDEN_SIZE", "IN_TRICK", "IncrementalObservations",
        "LAYOUT_ENDS_BEFORE", "LAYOUT_KEY", "MAX_ACTIVE", "MAX_DEALS", "MAX_HIDDEN", "MAX_POINTS",
        "OBS_LAYOUT", "OBS_SIZE", "OFFSET", "OLD_LAYOUT_KEY", "Observer", "PLAYED", "ROW",
        "SHAPES", "SIGNS_OBS_LAYOUT", "SIGNS_OBS_SIZE", "SIGN_SHAPES", "SIGN_SLICES", "SLICES",
        "SPOILED_COLUMN", "STATE_SIZE", "UNSEEN", "decode_observation", "dense",
        "encode_observation", "encode_signs_observation", "encode_state", "layout_of", "obs_size",
        "observer",
        "read_match", "read_state", "read_view", "saved_layout", "state_size", "write_active",
        "write_hidden", "write_signs", "write_view",
    ],
    "aluette_env.vector": ["DEAL_RESULT", "GAME_STATE", "HAVE_NUMBA", "NOBODY", "VectorGame",
                           "kernel_widths"],
    "aluette_env.players": [
        "BatchPlayer", "Loader", "Option", "Player", "PlayerSpecError", "SEED", "Silent",
        "TEMPERATURE", "act_batch", "check_batch", "checked_seed", "for_signs",
        "for_the_default_game", "load_player", "parse_options", "player_names",
        "player_options", "register_loader", "register_player", "split_specs",
    ],
}

#: (module, old name, the name it became): still importable, with a DeprecationWarning.
RENAMED = [
    ("aluette_env", "OBS_VERSION", "OBS_LAYOUT"),
    ("aluette_env.observation", "OBS_VERSION", "OBS_LAYOUT"),
    ("aluette_env.observation", "SIGNS_OBS_VERSION", "SIGNS_OBS_LAYOUT"),
    ("aluette_env.observation", "VERSION_ENDS_BEFORE", "LAYOUT_ENDS_BEFORE"),
    ("aluette_env.observation", "relative", "relative_seat"),
]


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_no_public_name_is_removed(module):
    mod = importlib.import_module(module)
    gone = sorted(set(PUBLIC[module]) - set(mod.__all__))
    assert not gone, (f"{module} no longer exports {gone}: keep each one release as an alias "
                      f"that warns (DeprecationWarning), as {module}'s renamed names do")
    missing = [name for name in PUBLIC[module] if not hasattr(mod, name)]
    assert not missing, f"{module}.__all__ names {missing}, which the module does not define"


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_every_public_name_is_listed_here(module):
    new = sorted(set(importlib.import_module(module).__all__) - set(PUBLIC[module]))
    assert not new, f"{module} exports {new}: add them to PUBLIC in {__name__} (a public promise)"


@pytest.mark.parametrize("module", sorted(PUBLIC))
def test_star_import_gives_every_public_name_without_a_warning(module):
    namespace: dict = {}
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        exec(f"from {module} import *", namespace)  # noqa: S102 - the import users write
    assert set(PUBLIC[module]) <= set(namespace)


@pytest.mark.parametrize(("module", "old", "new"), RENAMED)
def test_a_renamed_name_still_answers_and_warns(module, old, new):
    mod = importlib.import_module(module)
    with pytest.warns(DeprecationWarning, match=rf"{module}\.{old} is deprecated; use "
                                                rf"{module}\.{new}") as caught:
        value = getattr(mod, old)
    assert value is getattr(mod, new)
    assert caught[0].filename == __file__  # points at the caller's line, not the module's
    assert old not in mod.__all__  # a star import does not warn


@pytest.mark.parametrize(("module", "old", "new"), RENAMED)
def test_from_import_of_a_renamed_name_warns_at_the_import(module, old, new):
    namespace: dict = {}
    with pytest.warns(DeprecationWarning, match=old):
        exec(f"from {module} import {old}", namespace)  # noqa: S102 - the import users write
    assert namespace[old] is getattr(importlib.import_module(module), new)


def test_an_unknown_name_is_still_an_attribute_error():
    for module in ("aluette_env", "aluette_env.observation"):
        with pytest.raises(AttributeError, match="no attribute 'OBS_VERSIONS'"):
            getattr(importlib.import_module(module), "OBS_VERSIONS")
    with pytest.raises(ImportError):
        exec("from aluette_env.observation import NO_SUCH_NAME", {})  # noqa: S102


def test_observer_version_is_its_layout_with_a_warning():
    from aluette_env.game import ALUETTE_V0
    from aluette_env.observation import observer
    seen = observer(ALUETTE_V0)
    with pytest.warns(DeprecationWarning, match=r"Observer\.version is deprecated; use "
                                                r"Observer\.layout"):
        assert seen.version == seen.layout == 1


def test_onnx_player_obs_version_is_its_layout_with_a_warning():
    pytest.importorskip("onnxruntime")
    from aluette_env.players import load_player
    player = load_player("ai")
    with pytest.warns(DeprecationWarning, match=r"OnnxPlayer\.obs_version is deprecated"):
        assert player.obs_version == player.obs_layout
