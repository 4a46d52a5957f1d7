"""Kernel Tuner's ``kernel_tuner.file_utils``: tuning results and run metadata in the T4 format."""
import json
import os
import platform
import sys

from ktune import _ktune
from ktune.live import path_argument


# The T4 formats (the community's "Open Autotuning" results and metadata formats, version 1.0.0) as JSON Schemas
# (draft 2020-12), for output_file_schema: what store_output_file and store_metadata_file write validates against
# them. Written from the formats' field lists; a result needs its configuration, times, invalidity and correctness.
_SCHEMA_VERSION = "1.0.0"
_VERSION_PATTERN = "^[0-9]+[.][0-9]+[.][0-9]+$"
_T4_RESULTS_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "T4 tuning results",
    "type": "object",
    "properties": {
        "schema_version": {"type": "string", "pattern": _VERSION_PATTERN},
        "metadata": {"type": "object"},
        "results": {
            "type": "array",
            "items": {
                "type": "object",
                "properties": {
                    "timestamp": {"type": "string"},
                    "configuration": {"type": "object"},
                    "objectives": {"type": "array"},
                    "times": {
                        "type": "object",
                        "properties": {
                            "compilation_time": {"type": "number"},
                            "runtimes": {"type": "array"},
                            "framework": {"type": "number"},
                            "search_algorithm": {"type": "number"},
                            "validation": {"type": "number"},
                        },
                    },
                    "invalidity": {"enum": ["timeout", "compile", "runtime", "correctness", "constraints", "correct"]},
                    "correctness": {"type": "number"},
                    "measurements": {
                        "type": "array",
                        "items": {
                            "type": "object",
                            "properties": {
                                "name": {"type": "string"},
                                "value": {"type": ["number", "string", "array"]},
                                "unit": {"type": "string"},
                            },
                        },
                    },
                },
                "required": ["configuration", "times", "invalidity", "correctness"],
            },
        },
    },
    "required": ["schema_version", "results"],
}
_T4_METADATA_SCHEMA = {
    "$schema": "https://json-schema.org/draft/2020-12/schema",
    "title": "T4 tuning metadata",
    "type": "object",
    "properties": {
        "schema_version": {"type": "string", "pattern": _VERSION_PATTERN},
        "metadata": {
            "type": "object",
            "properties": {
                "zenodo": {"type": "object"},
                "hardware": {
                    "type": "object",
                    "properties": {"hardware_description": {"type": "array"}, "operating_system": {"type": "string"}},
                },
                "environment": {
                    "type": "object",
                    "properties": {"device_query": {"type": "object"}, "requirements": {"type": "array"}},
                },
            },
        },
    },
    "required": ["schema_version", "metadata"],
}


# The T1 tuning-problem format (version 1.0.0, draft-07), for input_file_schema and get_input_file: a configuration
# space of named, typed parameters whose Values is a Python expression giving the list, with conditions over them,
# and the kernel it belongs to; a search strategy, budgets and general settings may follow.
_FILL_TYPES = ["Constant", "Random", "Generator", "Script", "BinaryRaw", "BinaryHDF"]
_SIZE = {"type": "object", "properties": {axis: {"type": "string"} for axis in "XYZ"}, "required": ["X"]}
_T1_INPUT_SCHEMA = {
    "$schema": "http://json-schema.org/draft-07/schema#",
    "title": "T1 tuning problem",
    "type": "object",
    "properties": {
        "ConfigurationSpace": {
            "type": "object",
            "properties": {
                "TuningParameters": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"Name": {"type": "string"},
                                   "Type": {"enum": ["int", "uint", "float", "bool", "string"]},
                                   "Values": {"type": "string"}},
                    "required": ["Name", "Type", "Values"]}},
                "Conditions": {"type": "array", "items": {
                    "type": "object",
                    "properties": {"Parameters": {"type": "array", "items": {"type": "string"}},
                                   "Expression": {"type": "string"}},
                    "required": ["Parameters", "Expression"]}},
            },
            "required": ["TuningParameters"],
        },
        "Search": {"type": "object", "properties": {
            "Name": {"type": "string"},
            "Attributes": {"type": "array", "items": {
                "type": "object",
                "properties": {"Name": {"type": "string"},
                               "Value": {"type": ["number", "string", "boolean", "object", "array"]}},
                "required": ["Name", "Value"]}}},
            "required": ["Name"]},
        "Budget": {"type": "array", "items": {
            "type": "object",
            "properties": {"Type": {"enum": ["TuningDuration", "ConfigurationCount", "ConfigurationFraction"]},
                           "BudgetValue": {"type": "number"}},
            "required": ["Type", "BudgetValue"]}},
        "General": {"type": "object", "properties": {
            "FormatVersion": {"type": "integer"},
            "LoggingLevel": {"enum": ["Off", "Error", "Warning", "Info", "Debug"]},
            "TimeUnit": {"enum": ["Nanoseconds", "Microseconds", "Milliseconds", "Seconds"]},
            "OutputFile": {"type": "string"},
            "OutputFormat": {"enum": ["JSON", "XML"]}}},
        "KernelSpecification": {
            "type": "object",
            "properties": {
                "Language": {"enum": ["OpenCL", "CUDA", "Vulkan", "Hypertuner"]},
                "KernelName": {"type": "string"},
                "KernelFile": {"type": "string"},
                "CompilerOptions": {"type": "array", "items": {"type": "string"}},
                "Profiling": {"type": "boolean"},
                "GlobalSizeType": {"enum": ["OpenCL", "CUDA", "Vulkan"]},
                "SharedMemory": {"type": "integer"},
                "SimulationInput": {"type": "string"},
                "Device": {"type": "object", "properties": {"PlatformId": {"type": "integer"},
                                                            "DeviceId": {"type": "integer"},
                                                            "Name": {"type": "string"}}},
                "GlobalSize": _SIZE,
                "LocalSize": _SIZE,
                "Arguments": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "Name": {"type": "string"},
                        "Type": {"enum": ["bool", "int8", "uint8", "int16", "uint16", "int32", "uint32", "int64",
                                          "uint64"]
                                 + [f"{base}{width}" for base in ("half", "float", "double")
                                    for width in ("", "2", "4", "8", "16")] + ["custom"]},
                        "Size": {"type": ["integer", "string"]},
                        "TypeSize": {"type": "integer"},
                        "FillType": {"enum": _FILL_TYPES},
                        "FillValue": {"type": "number"},
                        "DataSource": {"type": "string"},
                        "RandomSeed": {"type": "integer"},
                        "AccessType": {"enum": ["ReadOnly", "WriteOnly", "ReadWrite"]},
                        "MemoryType": {"enum": ["Scalar", "Vector", "Local", "Symbol"]},
                    },
                    "required": ["Type", "MemoryType"]}},
                "ReferenceArguments": {"type": "array", "items": {
                    "type": "object",
                    "properties": {
                        "Name": {"type": "string"},
                        "TargetName": {"type": "string"},
                        "FillType": {"enum": _FILL_TYPES},
                        "FillValue": {"type": "number"},
                        "DataSource": {"type": "string"},
                        "RandomSeed": {"type": "integer"},
                        "ValidationMethod": {"enum": ["AbsoluteDifference", "SideBySideComparison",
                                                      "SideBySideRelativeComparison"]},
                        "ValidationThreshold": {"type": "number"},
                    },
                    "required": ["Name", "TargetName", "FillType"]}},
            },
            "required": ["Language", "KernelName", "KernelFile", "GlobalSize", "LocalSize"],
        },
    },
    "required": ["ConfigurationSpace", "KernelSpecification"],
}


def input_file_schema():
    """Kernel Tuner's input_file_schema: ``(version, schema)`` of the T1 tuning-problem format (a JSON Schema dict)."""
    return _SCHEMA_VERSION, json.loads(json.dumps(_T1_INPUT_SCHEMA))


def get_input_file(filepath, validate=True):
    """Kernel Tuner's get_input_file: the T1 file's contents as a dict; with ``validate``, checked against the T1
    schema first (``ValueError`` naming the file and the place of the first violation). Needs python3-jsonschema
    to validate, as Kernel Tuner does."""
    path = path_argument(filepath, "the T1 file")
    with open(path, encoding="utf-8") as f:
        try:
            document = json.load(f)
        except json.JSONDecodeError as e:
            raise ValueError(f"{path}: not JSON: {e}") from None
    if validate:
        import jsonschema  # Debian's python3-jsonschema (scripts/setup.sh)
        errors = sorted(jsonschema.Draft7Validator(_T1_INPUT_SCHEMA).iter_errors(document),
                        key=lambda e: list(e.absolute_path))
        if errors:
            where = "/".join(str(p) for p in errors[0].absolute_path) or "the top level"
            raise ValueError(f"{path}: not a T1 file: at {where}: {errors[0].message}")
    return document


def output_file_schema(target):
    """Kernel Tuner's output_file_schema: ``(version, schema)`` of the T4 ``"results"`` or ``"metadata"`` format, the
    JSON Schema (a dict, for ``jsonschema.validate``) that store_output_file's and store_metadata_file's files meet."""
    schemas = {"results": _T4_RESULTS_SCHEMA, "metadata": _T4_METADATA_SCHEMA}
    if target not in schemas:
        raise ValueError(f"output_file_schema: target must be 'results' or 'metadata', not {target!r}")
    return _SCHEMA_VERSION, json.loads(json.dumps(schemas[target]))  # a copy the caller may change


def filename_ensure_json_extension(filename):
    """The name with ``.json`` appended unless it ends with it, as Kernel Tuner names its output files."""
    filename = path_argument(filename, "the file name")
    return filename if filename.endswith(".json") else filename + ".json"


def store_output_file(output_filename, results, tune_params, objective="time"):
    """Writes ``results`` (as tune_kernel returns them) as a T4 results file: each result's configuration, times,
    validity and measurements, with ``objective`` as the objective."""
    if not isinstance(tune_params, dict):
        raise TypeError("tune_params must be the dict of parameter name -> values given to tune_kernel")
    _ktune.write_t4(filename_ensure_json_extension(output_filename), [(k, list(v)) for k, v in tune_params.items()],
                    list(results), [objective] if isinstance(objective, str) else list(objective))


def get_t4_metadata():
    """T4 metadata of this run's environment: the operating system, the interpreter and ktune's version. (Kernel Tuner
    adds the output of lshw and nvidia-smi/rocm-smi where installed; ktune does not run them.)"""
    # The operating system where the format defines it (hardware) and where Kernel Tuner writes it (metadata).
    operating_system = platform.platform()
    return {
        "schema_version": _SCHEMA_VERSION,
        "metadata": {
            "operating_system": operating_system,
            "hardware": {"hardware_description": [{"machine": platform.machine(), "processor": platform.processor()}],
                         "operating_system": operating_system},
            "environment": {
                "device_query": {},
                "requirements": [f"ktune=={_ktune.__version__}", f"python=={platform.python_version()}"],
                "executable": sys.executable,
            },
        },
    }


def store_metadata_file(metadata_filename):
    """Writes the metadata of this run's environment (get_t4_metadata) as a T4 metadata file (its folder made if
    missing, as Kernel Tuner makes it)."""
    path = filename_ensure_json_extension(metadata_filename)
    if os.path.dirname(path):
        os.makedirs(os.path.dirname(path), exist_ok=True)
    with open(path, "w", encoding="utf-8") as f:
        json.dump(get_t4_metadata(), f, indent="  ")


def import_class_from_file(file_path, class_name):
    """Kernel Tuner's import_class_from_file: the class named ``class_name`` defined in the Python file (a custom
    optimiser, for ``custom_search_method_path``). FileNotFoundError / ValueError name the file and the class."""
    import importlib.util
    path = path_argument(file_path, "the Python file")
    if not os.path.isfile(path):
        raise FileNotFoundError(f"{path!r} does not exist (relative names are found from {os.getcwd()})")
    spec = importlib.util.spec_from_file_location(f"_ktune_imported_{class_name}", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    found = getattr(module, class_name, None)
    if not isinstance(found, type):
        raise ValueError(f"{path} defines no class {class_name}")
    return found
