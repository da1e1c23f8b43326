# make demo: runs in the VM on Debian's stock kernel (see Makefile).
set -e
step() { echo; echo "==> $*"; }
step "insmod twheel.ko"
insmod /lib/twheel/twheel.ko
ls -l /dev/twheel
echo "twheel $(cat /sys/module/twheel/version), max_timers per fd: $(cat /sys/module/twheel/parameters/max_timers)"
step "twheelctl info: what an fd is"
twheelctl info
step "twheelctl after 300 100 200 100: four timers, read as they fire"
twheelctl after 300 100 200 100
step "twheelctl stress 200000 3000 25: 200k timers on one fd over 3 s, a quarter cancelled"
twheelctl stress 200000 3000 25
step "rmmod twheel"
rmmod twheel
