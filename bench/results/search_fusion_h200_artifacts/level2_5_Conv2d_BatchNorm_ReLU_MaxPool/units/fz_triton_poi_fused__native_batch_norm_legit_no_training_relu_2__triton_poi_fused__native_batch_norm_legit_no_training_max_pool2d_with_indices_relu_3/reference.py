"""Composed eager reference of the fused unit fz_triton_poi_fused__native_batch_norm_legit_no_training_relu_2__triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3: triton_poi_fused__native_batch_norm_legit_no_training_relu_2's reference (producer/),
then triton_poi_fused__native_batch_norm_legit_no_training_max_pool2d_with_indices_relu_3's (consumer/), with the producer's output buf3 passed as the consumer's
in_ptr0.  Inputs are the fused unit's argument names.
"""
import importlib.util as _ilu
import os as _os

LEVEL = "kernel"
INPUTS = ['in_ptr0', 'p_in_ptr0', 'p_in_ptr1', 'p_in_ptr2', 'p_in_ptr3']
OUTPUTS = ['out_ptr0']
_PRODUCER_ARG = {'in_ptr0': 'p_in_ptr0', 'in_ptr1': 'p_in_ptr1', 'in_ptr2': 'p_in_ptr2', 'in_ptr3': 'p_in_ptr3', 'in_out_ptr0': 'in_ptr0'}  # producer argument name -> fused argument name
_BUFFER = ('in_out_ptr0', 'in_ptr0')


def _load(sub):
    path = _os.path.join(_os.path.dirname(_os.path.abspath(__file__)), sub, "reference.py")
    spec = _ilu.spec_from_file_location("kernelopt_fused_ref_" + sub, path)
    mod = _ilu.module_from_spec(spec)
    spec.loader.exec_module(mod)
    return mod


def reference(**args):
    producer, consumer = _load("producer"), _load("consumer")
    produced = producer.reference(**{n: args[_PRODUCER_ARG[n]] for n in producer.INPUTS})
    ins = {n: (produced[_BUFFER[0]] if n == _BUFFER[1] else args[n]) for n in consumer.INPUTS}
    return consumer.reference(**ins)
